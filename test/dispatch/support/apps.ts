// The same dispatcher in each framework's app, as its users would mount it,
// beside routes of the app's own: `/own/health`; `/own/shadowed`, which the
// tests also create as a record (the app's route must win: in Fastify and Hono
// it is registered after the dispatcher, since their routers do not go by
// order); and `/own/after`, registered after the dispatcher, which no record
// names (what the table does not match falls through to it).
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { watchRouteTable, type WatchedRouteTable } from '@switchyard/client';
import { createDispatcher, type Dispatcher, type UnknownNames } from '@switchyard/dispatch';
import { expressDispatch } from '@switchyard/dispatch/express';
import { fastifyDispatch } from '@switchyard/dispatch/fastify';
import { fetchHandler } from '@switchyard/dispatch/fetch';
import { nodeListener } from '@switchyard/dispatch/node';
import { handlers, middleware } from './registry.js';

export type Framework = 'express' | 'fastify' | 'hono' | 'node';

export interface RunningApp {
  readonly url: string;
  readonly dispatcher: Dispatcher;
  readonly unknownReported: UnknownNames[];
  readonly errors: string[];
  close(): Promise<void>;
}

/** How each app answers what the dispatcher hands back to it: its own 404 and error handler. */
export const OWN = {
  health: { own: 'health' },
  shadowed: { own: 'shadowed' },
  after: { own: 'after' },
  notFound: { own: 'not found' },
} as const;

export async function startApp(framework: Framework, switchyardUrl: string, token: string): Promise<RunningApp> {
  const table = watchRouteTable({ url: switchyardUrl, token, minBackoffMs: 50 });
  await table.ready;
  const unknownReported: UnknownNames[] = [];
  const errors: string[] = [];
  const dispatcher = createDispatcher({
    table,
    handlers,
    middleware,
    onUnknown: (unknown) => unknownReported.push(unknown),
    onError: (error) => errors.push((error as Error).message),
    logger: null,
  });
  const { url, close } = await START[framework](dispatcher);
  return {
    url,
    dispatcher,
    unknownReported,
    errors,
    close: async () => {
      await close();
      dispatcher.close();
      closeTable(table);
    },
  };
}

function closeTable(table: WatchedRouteTable): void {
  table.close();
}

type Started = { url: string; close: () => Promise<void> };

const START: Record<Framework, (dispatcher: Dispatcher) => Promise<Started>> = {
  async express(dispatcher) {
    const app = express();
    app.get('/own/health', (_req, res) => void res.json(OWN.health));
    app.get('/own/shadowed', (_req, res) => void res.json(OWN.shadowed));
    app.use(expressDispatch(dispatcher));
    app.get('/own/after', (_req, res) => void res.json(OWN.after));
    app.use((_req: express.Request, res: express.Response) => void res.status(404).json(OWN.notFound));
    app.use(
      (error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
        void res.status(500).json({ appError: error.message }),
    );
    return listen(createServer(app));
  },
  async fastify(dispatcher) {
    const app = Fastify();
    app.get('/own/health', async () => OWN.health);
    app.setNotFoundHandler((_request, reply) => reply.code(404).send(OWN.notFound));
    app.setErrorHandler((error: Error, _request, reply) => reply.code(500).send({ appError: error.message }));
    await app.register(fastifyDispatch(dispatcher));
    app.get('/own/shadowed', async () => OWN.shadowed);
    app.get('/own/after', async () => OWN.after);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    return { url, close: () => app.close() };
  },
  async hono(dispatcher) {
    const app = new Hono();
    app.get('/own/health', (c) => c.json(OWN.health));
    // Hono asks notFound for what its own routes do not match: the table answers that.
    const dispatch = fetchHandler(dispatcher);
    app.notFound((c) => dispatch(c.req.raw));
    app.get('/own/shadowed', (c) => c.json(OWN.shadowed));
    app.get('/own/after', (c) => c.json(OWN.after));
    let server!: ReturnType<typeof serve>;
    const port = await new Promise<number>(
      (resolve) => (server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(info.port))),
    );
    return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  },
  async node(dispatcher) {
    const own = (path: string) => (path === '/own/health' ? OWN.health : path === '/own/shadowed' ? OWN.shadowed : undefined);
    const answer = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    // What the table does not match: the app's routes after it, else its 404.
    const listener = nodeListener(dispatcher, {
      fallback: (req, res) => (req.url === '/own/after' ? answer(res, 200, OWN.after) : answer(res, 404, OWN.notFound)),
    });
    // The app's own routes first, the table after them.
    return listen(
      createServer((req, res) => {
        const mine = own(req.url ?? '');
        return mine ? answer(res, 200, mine) : listener(req, res);
      }),
    );
  },
};

async function listen(server: Server): Promise<Started> {
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
