import { invalidRequest } from '../http/api-error.js';
import { readJsonObject } from '../http/json-body.js';
import { sendJson } from '../http/respond.js';
import type { Endpoint } from '../http/router.js';
import type { ServiceClients } from '../service/clients.js';
import { parseCreateRouteBody } from './route-body.js';
import { routeMatchView, routeView } from './views.js';

export interface RoutingDeps {
  readonly clients: ServiceClients;
  readonly jsonBodyLimitBytes: number;
}

/** Route records: create, get, and match a concrete request against the workspace's routes. */
export function routingEndpoints({ clients, jsonBodyLimitBytes }: RoutingDeps): Endpoint[] {
  return [
    {
      method: 'POST',
      path: '/v1/routing',
      async handle(ctx) {
        const body = parseCreateRouteBody(await readJsonObject(ctx.req, jsonBodyLimitBytes));
        const route = await clients.routes.createRoute({ ...body, middleware: [...body.middleware] }, ctx.callOptions());
        sendJson(ctx.res, 201, routeView(route), { location: `/v1/routing/${encodeURIComponent(route.id)}` });
      },
    },
    {
      // `:match` is a custom method in the style of Google's AIP-136, so it can never be taken for a route id.
      method: 'GET',
      path: '/v1/routing:match',
      async handle(ctx) {
        const method = singleQueryValue(ctx.query, 'method');
        const path = singleQueryValue(ctx.query, 'path');
        const match = await clients.routes.matchRoute({ method, path }, ctx.callOptions());
        sendJson(ctx.res, 200, routeMatchView(match));
      },
    },
    {
      method: 'GET',
      path: '/v1/routing/{id}',
      async handle(ctx) {
        const route = await clients.routes.getRoute({ id: ctx.params['id'] ?? '' }, ctx.callOptions());
        sendJson(ctx.res, 200, routeView(route));
      },
    },
  ];
}

function singleQueryValue(query: URLSearchParams, name: string): string {
  const values = query.getAll(name);
  if (values.length === 0) throw invalidRequest(name, 'query parameter is required');
  if (values.length > 1) throw invalidRequest(name, 'query parameter given more than once');
  return values[0]!;
}
