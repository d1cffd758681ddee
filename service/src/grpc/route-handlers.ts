import type { RouteService } from '@switchyard/core';
import type {
  CreateRouteRequest,
  DeleteRouteRequest,
  DeleteRouteResponse,
  GetRouteRequest,
  ListRoutesRequest,
  ListRoutesResponse,
  MatchRouteRequest,
  MatchRouteResponse,
  Route,
  RouteEvent,
  RouteServiceServer,
  UpdateRouteRequest,
  WatchRoutesRequest,
} from '../gen/switchyard/v1/routes.js';
import { matchToMessage, routeEventToMessage, routeToMessage } from './convert.js';
import type { Rpc } from './rpc.js';
import { writeEvents } from './event-stream.js';

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
    getRoute: rpc.unary<GetRouteRequest, Route>('GetRoute', async (request, { principal }) =>
      routeToMessage(await routes.get(principal, request.id)),
    ),
    matchRoute: rpc.unary<MatchRouteRequest, MatchRouteResponse>('MatchRoute', async (request, { principal }) =>
      matchToMessage(await routes.match(principal, { method: request.method, path: request.path })),
    ),
    listRoutes: rpc.unary<ListRoutesRequest, ListRoutesResponse>('ListRoutes', async (request, { principal }) => {
      const page = await routes.list(principal, { pageSize: request.pageSize, pageToken: request.pageToken });
      return { routes: page.routes.map(routeToMessage), nextPageToken: page.nextPageToken };
    }),
    updateRoute: rpc.unary<UpdateRouteRequest, Route>('UpdateRoute', async (request, { principal }) =>
      routeToMessage(
        await routes.update(principal, request.id, {
          method: request.method,
          path: request.path,
          middleware: request.middleware?.names,
          handler: request.handler,
        }),
      ),
    ),
    deleteRoute: rpc.unary<DeleteRouteRequest, DeleteRouteResponse>('DeleteRoute', async (request, { principal }) => {
      await routes.delete(principal, request.id);
      return {};
    }),
    watchRoutes: rpc.serverStream<WatchRoutesRequest, RouteEvent>('WatchRoutes', (call, { principal, closing }) =>
      writeEvents(
        call,
        closing,
        (signal) => routes.watch(principal, { sinceRevision: Number(call.request.sinceRevision), signal }),
        routeEventToMessage,
      ),
    ),
  };
}
