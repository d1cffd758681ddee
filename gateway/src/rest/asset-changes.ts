import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AssetChange, AssetWatchEvent } from '@switchyard/proto';
import type { Logger } from '@switchyard/runtime';
import { z } from 'zod';
import { contextOf } from '../app/request-context.js';
import { copyHookHeaders } from '../app/raw-reply.js';
import { isSettled } from '../http/respond.js';
import { errorResponses } from '../openapi/responses.js';
import type { ServiceClients } from '../service/clients.js';
import {
  AssetChangePageSchema,
  AssetHistoryQuerySchema,
  WatchAssetsHeadersSchema,
  WatchAssetsQuerySchema,
  type AssetChangeView,
} from './change-schemas.js';
import { AssetIdParams } from './schemas.js';
import { relayEvents, sseFrame } from './sse.js';
import { assetView, isoTime } from './views.js';

export interface AssetChangeDeps {
  readonly clients: ServiceClients;
  readonly log: Logger;
  /** Aborts when the gateway shuts down: watches end, so their clients resume elsewhere. */
  readonly closing: AbortSignal;
}

/** The asset change log: the workspace's changes as Server-Sent Events, and one asset's history. */
export const assetChangeRoutes: FastifyPluginAsyncZod<AssetChangeDeps> = async (app, { clients, log, closing }) => {
  app.get(
    '/v1/assets::watch',
    {
      schema: {
        tags: ['assets'],
        operationId: 'watchAssets',
        summary: "The workspace's asset changes as Server-Sent Events (scope assets:read)",
        description:
          'Each change is an event named by its type (`asset.created`, `asset.replaced`, `asset.updated`, `asset.deleted`) with its revision as `id:` and the change as `data:`; a batch delete sends one event per asset, all at one revision. Also `synced` {revision} first when no revision was given, `reset` {revision} when the changes asked for are no longer kept (list again, then apply what follows), `heartbeat` {revision} in quiet times, and `error` before the server ends a stream it cannot continue. An EventSource resumes with `Last-Event-ID` (which wins over `sinceRevision`).',
        querystring: WatchAssetsQuerySchema,
        headers: WatchAssetsHeadersSchema,
        response: { 200: z.string().describe('`text/event-stream`.'), ...errorResponses(400) },
      },
      // A HEAD would hold a connection open with nothing to send.
      exposeHeadRoute: false,
    },
    async (request, reply) => {
      const ctx = contextOf(request, reply, log);
      const since = request.headers['last-event-id'] ?? request.query.sinceRevision;
      const signal = AbortSignal.any([ctx.signal, closing]);
      const events = clients.assets.watchAssets(since === undefined ? {} : { sinceRevision: BigInt(since) }, {
        ...ctx.callOptions({ streaming: true }),
        signal,
      });
      // The hooks' headers (CORS, request id) go on the raw response; a refusal before the first event is still Fastify's to answer.
      copyHookHeaders(reply);
      await relayEvents(events, assetWatchFrame, reply.raw, signal);
      if (isSettled(reply.raw)) return reply.hijack();
      return reply;
    },
  );

  app.get(
    '/v1/assets/:id/history',
    {
      schema: {
        tags: ['assets'],
        operationId: 'listAssetChanges',
        summary: "An asset's changes, newest first (scope assets:read)",
        description:
          "Cursor pages of `pageSize` (1-1000, default 50): pass `nextPageToken` back as `pageToken` until it is empty. A deleted asset's history stays readable as long as it is kept (`ASSET_HISTORY` revisions); 404 when neither the asset nor a kept change of it exists.",
        params: AssetIdParams,
        querystring: AssetHistoryQuerySchema,
        response: { 200: AssetChangePageSchema.describe('A page.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const { pageSize, pageToken } = request.query;
      const page = await clients.assets.listAssetChanges(
        { id: request.params.id, pageSize: pageSize ?? 0, pageToken: pageToken ?? '' },
        contextOf(request, reply, log).callOptions(),
      );
      return { changes: page.changes.map(assetChangeView), nextPageToken: page.nextPageToken };
    },
  );
};

/** One watch event as SSE text: a change named by its type, with its revision as `id:`. */
export function assetWatchFrame(event: AssetWatchEvent): string {
  const revision = Number(event.revision);
  const { case: kind, value } = event.event;
  switch (kind) {
    case 'change':
      return sseFrame(value.type, revision, assetChangeView(value));
    case 'synced':
    case 'reset':
      // With an id, so a client cut off before the next change resumes from here.
      return sseFrame(kind, revision, { revision });
    case 'heartbeat':
      return sseFrame('heartbeat', undefined, { revision });
    default:
      return '';
  }
}

export function assetChangeView(change: AssetChange): AssetChangeView {
  return {
    type: change.type as AssetChangeView['type'],
    revision: Number(change.revision),
    time: isoTime(change.time, 'time'),
    actor: change.actor,
    assetId: change.assetId,
    asset: change.asset ? assetView(change.asset) : null,
    ...(change.previous
      ? { previous: { type: change.previous.type, size: Number(change.previous.size), sha256: change.previous.sha256 } }
      : {}),
    ...(change.reason === '' ? {} : { reason: change.reason as 'restore' | 'purge' }),
    ...(change.versionIds.length === 0 ? {} : { versionIds: [...change.versionIds] }),
  };
}
