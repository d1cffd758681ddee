import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Logger } from '@switchyard/runtime';
import { contextOf } from '../app/request-context.js';
import { errorResponses } from '../openapi/responses.js';
import type { ServiceClients } from '../service/clients.js';
import {
  ApplyRoutesBodySchema,
  ApplyRoutesResultSchema,
  ListRouteChangesQuerySchema,
  RollbackRoutesBodySchema,
  RouteChangePageSchema,
} from './route-code-schemas.js';
import { applyResultView, routeChangeView } from './views.js';

export interface RoutesAsCodeDeps {
  readonly clients: ServiceClients;
  readonly log: Logger;
}

/** An apply names up to 10,000 routes: its body may be as large as one gRPC message, whatever JSON_BODY_LIMIT_BYTES says. */
export const APPLY_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** Routes as code: apply a whole table, read the change log, roll back to a revision. */
export const routesAsCode: FastifyPluginAsyncZod<RoutesAsCodeDeps> = async (app, { clients, log }) => {
  app.post(
    '/v1/routing::apply',
    {
      bodyLimit: APPLY_BODY_LIMIT_BYTES,
      schema: {
        tags: ['routes'],
        operationId: 'applyRoutes',
        summary: "Make the owner's routes the desired table, in one revision (scope routes:write)",
        description:
          "A route is identified by method and path shape. Only the owner's routes are planned; with `prune`, the owner's routes left out are deleted. An unchanged table makes no revision. 400 names every bad entry (`details[].field` like `routes[3].path`) and writes nothing; 409 `already_exists` when a desired route is another owner's (the details name it); 409 `aborted` when `expectedRevision` is not current (the detail names the current revision).",
        body: ApplyRoutesBodySchema,
        response: {
          200: ApplyRoutesResultSchema.describe('What changed (or, with dryRun, would change).'),
          ...errorResponses(400, 409, 413),
        },
      },
    },
    async (request, reply) => {
      const { routes, owner = '', prune = false, expectedRevision, dryRun = false } = request.body;
      const result = await clients.routes.applyRoutes(
        {
          // Field by field, not with rest and spread: V8 copies a rest object slowly, and an apply names up to 10,000 (route-apply-5000).
          routes: routes.map((route) => ({
            method: route.method,
            path: route.path,
            middleware: route.middleware ?? [],
            handler: route.handler,
            owner: route.owner ?? '',
          })),
          owner,
          prune,
          dryRun,
          ...(expectedRevision === undefined ? {} : { expectedRevision: BigInt(expectedRevision) }),
        },
        contextOf(request, reply, log).callOptions(),
      );
      return applyResultView(result);
    },
  );

  app.post(
    '/v1/routing::rollback',
    {
      schema: {
        tags: ['routes'],
        operationId: 'rollbackRoutes',
        summary: 'Make the table what it was at a revision, as a new revision (scope routes:write)',
        description:
          "Every owner's routes are restored, planned and written as an apply; the answer is an apply's. 400 when the revision is ahead of the table or older than the kept history (the message says how far back it goes); 409 `aborted` when `expectedRevision` is not current.",
        body: RollbackRoutesBodySchema,
        response: {
          200: ApplyRoutesResultSchema.describe('What changed (or, with dryRun, would change).'),
          ...errorResponses(400, 409, 413),
        },
      },
    },
    async (request, reply) => {
      const { revision, expectedRevision, dryRun = false } = request.body;
      const result = await clients.routes.rollbackRoutes(
        {
          revision: BigInt(revision),
          dryRun,
          ...(expectedRevision === undefined ? {} : { expectedRevision: BigInt(expectedRevision) }),
        },
        contextOf(request, reply, log).callOptions(),
      );
      return applyResultView(result);
    },
  );

  app.get(
    '/v1/routing/changes',
    {
      schema: {
        tags: ['routes'],
        operationId: 'listRouteChanges',
        summary: "The route table's change log, oldest first (scope routes:read)",
        description:
          'Whole revisions only: a page may hold more than `pageSize` when one revision does. The log keeps the last `ROUTE_HISTORY` revisions; an older `sinceRevision` is 400 saying how far back it goes.',
        querystring: ListRouteChangesQuerySchema,
        response: { 200: RouteChangePageSchema.describe('A page.'), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const { sinceRevision = 0, pageSize = 0, pageToken = '' } = request.query;
      const page = await clients.routes.listRouteChanges(
        { sinceRevision: BigInt(sinceRevision), pageSize, pageToken },
        contextOf(request, reply, log).callOptions(),
      );
      return { changes: page.changes.map(routeChangeView), nextPageToken: page.nextPageToken };
    },
  );
};
