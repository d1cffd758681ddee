import type { RouteService } from '@switchyard/core';
import type {
  ApplyRoutesRequest,
  ApplyRoutesResponse,
  CreateRouteRequest,
  ListRouteChangesRequest,
  ListRouteChangesResponse,
  RollbackRoutesRequest,
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
import { applyResultToMessage, matchToMessage, routeChangeToMessage, routeEventToMessage, routeToMessage } from './convert.js';
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
          owner: request.owner,
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
      const page = await routes.list(principal, {
        pageSize: request.pageSize,
        pageToken: request.pageToken,
        atRevision: request.atRevision,
      });
      return { routes: page.routes.map(routeToMessage), nextPageToken: page.nextPageToken };
    }),
    updateRoute: rpc.unary<UpdateRouteRequest, Route>('UpdateRoute', async (request, { principal }) =>
      routeToMessage(
        await routes.update(principal, request.id, {
          method: request.method,
          path: request.path,
          middleware: request.middleware?.names,
          handler: request.handler,
          owner: request.owner,
        }),
      ),
    ),
    deleteRoute: rpc.unary<DeleteRouteRequest, DeleteRouteResponse>('DeleteRoute', async (request, { principal }) => {
      await routes.delete(principal, request.id);
      return {};
    }),
    applyRoutes: rpc.unary<ApplyRoutesRequest, ApplyRoutesResponse>('ApplyRoutes', async (request, { principal }) =>
      applyResultToMessage(
        await routes.apply(principal, {
          // An entry's empty owner is a left-out one (the apply's). Field by field: a rest copy is slow for 10,000 entries.
          routes: request.routes.map((route) => ({
            method: route.method,
            path: route.path,
            middleware: route.middleware,
            handler: route.handler,
            owner: route.owner === '' ? undefined : route.owner,
          })),
          owner: request.owner,
          prune: request.prune,
          expectedRevision: request.expectedRevision,
          dryRun: request.dryRun,
        }),
      ),
    ),
    listRouteChanges: rpc.unary<ListRouteChangesRequest, ListRouteChangesResponse>('ListRouteChanges', async (request, { principal }) => {
      const page = await routes.changes(principal, {
        sinceRevision: request.sinceRevision,
        pageSize: request.pageSize,
        pageToken: request.pageToken,
      });
      return { changes: page.changes.map(routeChangeToMessage), nextPageToken: page.nextPageToken };
    }),
    rollbackRoutes: rpc.unary<RollbackRoutesRequest, ApplyRoutesResponse>('RollbackRoutes', async (request, { principal }) =>
      applyResultToMessage(
        await routes.rollback(principal, {
          revision: request.revision,
          expectedRevision: request.expectedRevision,
          dryRun: request.dryRun,
        }),
      ),
    ),
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
