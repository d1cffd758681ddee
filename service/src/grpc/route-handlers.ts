import type { RouteService } from '@switchyard/core';
import type { CreateRouteRequest, GetRouteRequest, MatchRouteRequest, MatchRouteResponse, Route, RouteServiceServer } from '../gen/switchyard/v1/routes.js';
import { matchToMessage, routeToMessage } from './convert.js';
import type { Rpc } from './rpc.js';

export function routeHandlers(routes: RouteService, rpc: Rpc): RouteServiceServer {
  return {
    createRoute: rpc.unary<CreateRouteRequest, Route>('CreateRoute', async (request, { principal }) =>
      routeToMessage(
        await routes.create(principal, {
          method: request.method,
          path: request.path,
          middleware: request.middleware,
          handler: request.handler,
        }),
      ),
    ),
    getRoute: rpc.unary<GetRouteRequest, Route>('GetRoute', async (request, { principal }) => routeToMessage(await routes.get(principal, request.id))),
    matchRoute: rpc.unary<MatchRouteRequest, MatchRouteResponse>('MatchRoute', async (request, { principal }) =>
      matchToMessage(await routes.match(principal, { method: request.method, path: request.path })),
    ),
  };
}
