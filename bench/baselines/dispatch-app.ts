// The servers of dispatch-fastify and dispatch-fetch: the same 1,000 routes
// (bench/benchmarks/route-set.ts) and the same handlers, either dispatched by
// @switchyard/dispatch from a route table or registered in the framework's own
// router. DISPATCH_SIDE picks one:
// - fastify-dispatch: Fastify 5 with fastifyDispatch (one catch-all route) over a
//   SyncedRouteTable fed in-process by the core's routes.watch;
// - fastify-direct: Fastify 5 with each route registered by app.route;
// - fetch-dispatch: @hono/node-server serving fetchHandler(dispatcher);
// - hono: @hono/node-server serving a Hono 4 app with each route registered.
// Prints `ready url=…`.
import { serve } from '@hono/node-server';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { SCOPES, SyncedRouteTable, createPrincipal, createSwitchyard, memoryAdapters } from '@switchyard/core';
import { createDispatcher, type Handler } from '@switchyard/dispatch';
import { fastifyDispatch } from '@switchyard/dispatch/fastify';
import { fetchHandler } from '@switchyard/dispatch/fetch';
import { buildRouteSet } from '../benchmarks/route-set.js';
import { DISPATCH_HANDLERS, handlerNameOf } from '../benchmarks/dispatch-handlers.js';

const side = process.env.DISPATCH_SIDE;
const { routes } = buildRouteSet();

/** The table as a service keeps it: records in the core (memory adapters), followed through routes.watch. */
async function watchedTable(): Promise<SyncedRouteTable> {
  const switchyard = createSwitchyard({ ...memoryAdapters(), cdnUrl: 'http://127.0.0.1/files' });
  const caller = createPrincipal('bench', 'bench', SCOPES);
  for (const [index, route] of routes.entries()) await switchyard.routes.create(caller, { ...route, handler: handlerNameOf(index) });
  const table = new SyncedRouteTable();
  void table.follow(switchyard.routes.watch(caller));
  while (!table.ready) await new Promise((resolve) => setTimeout(resolve, 10));
  if (table.routes().length !== routes.length) throw new Error(`the table holds ${table.routes().length} routes, not ${routes.length}`);
  return table;
}

const handlers: Record<string, Handler> = Object.fromEntries(
  Object.entries(DISPATCH_HANDLERS).map(([name, answer]) => [name, (ctx) => answer(ctx.params)]),
);

async function start(): Promise<string> {
  switch (side) {
    case 'fastify-dispatch': {
      const app = Fastify();
      await app.register(fastifyDispatch(createDispatcher({ table: await watchedTable(), handlers })));
      return app.listen({ host: '127.0.0.1', port: 0 });
    }
    case 'fastify-direct': {
      const app = Fastify();
      for (const [index, route] of routes.entries()) {
        const answer = DISPATCH_HANDLERS[handlerNameOf(index)]!;
        app.route({
          method: route.method,
          url: route.path,
          handler: (request) => answer(request.params as Record<string, string>),
        });
      }
      return app.listen({ host: '127.0.0.1', port: 0 });
    }
    case 'fetch-dispatch':
      return listen(fetchHandler(createDispatcher({ table: await watchedTable(), handlers })));
    case 'hono': {
      const app = new Hono();
      for (const [index, route] of routes.entries()) {
        const answer = DISPATCH_HANDLERS[handlerNameOf(index)]!;
        app.on(route.method, route.path, (c) => c.json(answer(c.req.param() as Record<string, string>)));
      }
      return listen(app.fetch);
    }
    default:
      throw new Error(`DISPATCH_SIDE must be fastify-dispatch, fastify-direct, fetch-dispatch or hono, not ${side}`);
  }
}

function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<string> {
  return new Promise((resolve) => serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(`http://127.0.0.1:${info.port}`)));
}

console.log(`ready url=${await start()}`);
// Exit normally on the harness's SIGTERM, so a --cpu-prof profile gets written.
process.once('SIGTERM', () => process.exit(0));
