import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Logger } from '@switchyard/runtime';
import { contextOf } from '../app/request-context.js';
import type { ServiceClients } from '../service/clients.js';
import { errorResponses } from '../openapi/responses.js';
import { z } from 'zod';
import { copyHookHeaders } from '../app/raw-reply.js';
import { relayWatch } from './route-watch-sse.js';
import { isSettled } from '../http/respond.js';
import {
  CreateRouteBodySchema,
  ListRoutesQuerySchema,
  MatchQuerySchema,
  RouteIdParams,
  RouteMatchSchema,
  RoutePageSchema,
  RouteSchema,
  UpdateRouteBodySchema,
  WatchRoutesHeadersSchema,
  WatchRoutesQuerySchema,
} from './schemas.js';
import { routeMatchView, routeView } from './views.js';

export interface RoutingDeps {
  readonly clients: ServiceClients;
  readonly log: Logger;
  /** Aborts when the gateway shuts down: watches end, so their clients resume elsewhere. */
  readonly closing: AbortSignal;
}

/** Route records: create, get, and match a concrete request against the workspace's routes. */
export const routingRoutes: FastifyPluginAsyncZod<RoutingDeps> = async (app, { clients, log, closing }) => {
  app.post(
    '/v1/routing',
    {
      schema: {
        tags: ['routes'],
        operationId: 'createRoute',
        summary: 'Create a route (scope routes:write)',
        description: '409 `already_exists` when the workspace has a route with the same method and path shape.',
        body: CreateRouteBodySchema,
        response: { 201: RouteSchema.describe('Created.'), ...errorResponses(400, 409, 413) },
      },
    },
    async (request, reply) => {
      const { middleware = [], ...body } = request.body;
      const route = await clients.routes.createRoute({ owner: '', ...body, middleware }, contextOf(request, reply, log).callOptions());
      return reply
        .code(201)
        .header('location', `/v1/routing/${encodeURIComponent(route.id)}`)
        .send(routeView(route));
    },
  );

  // `:match` is a custom method in the style of Google's AIP-136, so it can never be taken for a route id.
  app.get(
    '/v1/routing::match',
    {
      schema: {
        tags: ['routes'],
        operationId: 'matchRoute',
        summary: 'Find the route matching a request (scope routes:read)',
        description: 'Static segments win over parameters, parameters over a trailing wildcard. 404 when no route matches.',
        querystring: MatchQuerySchema,
        response: { 200: RouteMatchSchema.describe('The match.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => routeMatchView(await clients.routes.matchRoute(request.query, contextOf(request, reply, log).callOptions())),
  );

  app.get(
    '/v1/routing',
    {
      schema: {
        tags: ['routes'],
        operationId: 'listRoutes',
        summary: "List the workspace's routes, oldest first (scope routes:read)",
        description:
          'Cursor pages: pass `nextPageToken` back as `pageToken` until it is empty. Routes added, changed or deleted meanwhile never make a page skip or repeat another. With `atRevision`, the table as it was at that revision.',
        querystring: ListRoutesQuerySchema,
        response: { 200: RoutePageSchema.describe('A page.'), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const page = await clients.routes.listRoutes(
        {
          pageSize: request.query.pageSize ?? 0,
          pageToken: request.query.pageToken ?? '',
          ...(request.query.atRevision === undefined ? {} : { atRevision: BigInt(request.query.atRevision) }),
        },
        contextOf(request, reply, log).callOptions(),
      );
      return { routes: page.routes.map(routeView), nextPageToken: page.nextPageToken };
    },
  );

  app.get(
    '/v1/routing::watch',
    {
      schema: {
        tags: ['routes'],
        operationId: 'watchRoutes',
        summary: "The workspace's route table as Server-Sent Events (scope routes:read)",
        description:
          'Events: `reset` (a snapshot begins), `upsert` {revision, route}, `delete` {revision, id}, `synced` (the snapshot is whole), `heartbeat`, and `error` before the server ends a stream it cannot continue. A revision of several changes (an apply, a rollback) marks each but its last with `moreInRevision: true`: apply them together at the last. Only the last change of a revision has its revision as `id:`, so an EventSource resumes with `Last-Event-ID` (which wins over `sinceRevision`) never inside a revision.',
        querystring: WatchRoutesQuerySchema,
        headers: WatchRoutesHeadersSchema,
        response: { 200: z.string().describe('`text/event-stream`.'), ...errorResponses(400) },
      },
      // A HEAD would hold a connection open with nothing to send.
      exposeHeadRoute: false,
    },
    async (request, reply) => {
      const ctx = contextOf(request, reply, log);
      const sinceRevision = request.headers['last-event-id'] ?? request.query.sinceRevision ?? 0;
      const signal = AbortSignal.any([ctx.signal, closing]);
      const events = clients.routes.watchRoutes(
        { sinceRevision: BigInt(sinceRevision) },
        { ...ctx.callOptions({ streaming: true }), signal },
      );
      // The hooks' headers (CORS, request id) go on the raw response; a refusal before the first event is still Fastify's to answer.
      copyHookHeaders(reply);
      await relayWatch(events, reply.raw, signal);
      if (isSettled(reply.raw)) return reply.hijack();
      return reply;
    },
  );

  app.patch(
    '/v1/routing/:id',
    {
      schema: {
        tags: ['routes'],
        operationId: 'updateRoute',
        summary: 'Change a route (scope routes:write)',
        description:
          'The fields given are validated as on create; 409 when another route of the workspace has the new method and path shape.',
        params: RouteIdParams,
        body: UpdateRouteBodySchema,
        response: { 200: RouteSchema.describe('The route as changed.'), ...errorResponses(400, 404, 409, 413) },
      },
    },
    async (request, reply) => {
      const { middleware, ...fields } = request.body;
      const route = await clients.routes.updateRoute(
        { id: request.params.id, ...fields, ...(middleware === undefined ? {} : { middleware: { names: middleware } }) },
        contextOf(request, reply, log).callOptions(),
      );
      return routeView(route);
    },
  );

  app.delete(
    '/v1/routing/:id',
    {
      schema: {
        tags: ['routes'],
        operationId: 'deleteRoute',
        summary: 'Delete a route (scope routes:write)',
        description: 'Its id answers 404 from then on; watchers get a `delete` event.',
        params: RouteIdParams,
        response: { 204: z.undefined().describe('Deleted.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      await clients.routes.deleteRoute({ id: request.params.id }, contextOf(request, reply, log).callOptions());
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/routing/:id',
    {
      schema: {
        tags: ['routes'],
        operationId: 'getRoute',
        summary: 'Get a route (scope routes:read)',
        params: RouteIdParams,
        response: { 200: RouteSchema.describe('The route.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) =>
      routeView(await clients.routes.getRoute({ id: request.params.id }, contextOf(request, reply, log).callOptions())),
  );
};
