import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Logger } from '@switchyard/runtime';
import { contextOf } from '../app/request-context.js';
import type { ServiceClients } from '../service/clients.js';
import { errorResponses } from '../openapi/responses.js';
import { CreateRouteBodySchema, MatchQuerySchema, RouteIdParams, RouteMatchSchema, RouteSchema } from './schemas.js';
import { routeMatchView, routeView } from './views.js';

export interface RoutingDeps {
  readonly clients: ServiceClients;
  readonly log: Logger;
}

/** Route records: create, get, and match a concrete request against the workspace's routes. */
export const routingRoutes: FastifyPluginAsyncZod<RoutingDeps> = async (app, { clients, log }) => {
  app.post(
    '/v1/routing',
    {
      schema: {
        tags: ['routes'],
        operationId: 'createRoute',
        summary: 'Create a route (scope routes:write)',
        body: CreateRouteBodySchema,
        response: { 201: RouteSchema.describe('Created.'), ...errorResponses(400, 409, 413) },
      },
    },
    async (request, reply) => {
      const { middleware = [], ...body } = request.body;
      const route = await clients.routes.createRoute({ ...body, middleware }, contextOf(request, reply, log).callOptions());
      return reply.code(201).header('location', `/v1/routing/${encodeURIComponent(route.id)}`).send(routeView(route));
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
    async (request, reply) => routeView(await clients.routes.getRoute({ id: request.params.id }, contextOf(request, reply, log).callOptions())),
  );
};
