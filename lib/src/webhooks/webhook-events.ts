import type { AssetChangeRecord } from '../ports/asset-change-log.js';
import type { AssetRecord } from '../ports/asset-store.js';
import type { RouteChange, RouteRecord } from '../ports/route-store.js';
import type { WebhookEventDraft } from '../ports/webhook-store.js';

/**
 * The event of an asset change. `data` holds the workspace, the revision and
 * the asset after the change (its public fields, without the `url`, which
 * depends on each gateway's CDN_URL); a delete carries the `id` only.
 */
export function assetChangeEvent(workspace: string, change: AssetChangeRecord): WebhookEventDraft {
  const base = { workspace, revision: change.revision, actor: change.actor };
  const data =
    change.type === 'asset.deleted'
      ? { ...base, id: change.assetId }
      : change.type === 'asset.replaced'
        ? { ...base, asset: assetData(change.asset), previous: { ...change.previous } }
        : { ...base, asset: assetData(change.asset) };
  return Object.freeze({ type: change.type, time: change.time, data: Object.freeze(data) });
}

/** The event of a route change: `route.created`, `route.updated` (the route after it) or `route.deleted` (its `id`). */
export function routeChangeEvent(workspace: string, change: RouteChange): WebhookEventDraft {
  const base = { workspace, revision: change.revision, actor: change.actor };
  const type = change.kind === 'create' ? 'route.created' : change.kind === 'update' ? 'route.updated' : 'route.deleted';
  const data = change.kind === 'delete' ? { ...base, id: change.id } : { ...base, route: routeData(change.after) };
  return Object.freeze({ type, time: change.time, data: Object.freeze(data) });
}

/** A `webhook.test` event: only the endpoint that asked gets it. */
export function testEvent(workspace: string, webhookId: string, time: Date): WebhookEventDraft {
  return Object.freeze({ type: 'webhook.test', time, data: Object.freeze({ workspace, webhookId }) });
}

/** The body sent, byte for byte: `{"type", "timestamp", "data"}`, serialized once when the event is written. */
export function eventBody(draft: WebhookEventDraft): string {
  return JSON.stringify({ type: draft.type, timestamp: draft.time.toISOString(), data: draft.data });
}

function assetData(record: AssetRecord): Record<string, unknown> {
  const data: Record<string, unknown> = {
    id: record.id,
    type: record.type,
    size: record.size,
    sha256: record.sha256,
    name: record.name,
    label: record.label,
    visibility: record.visibility,
    createdAt: record.createdAt.toISOString(),
    uploadedAt: record.uploadedAt.toISOString(),
  };
  for (const fact of ['width', 'height', 'durationMs', 'pages'] as const) if (record[fact] !== undefined) data[fact] = record[fact];
  return data;
}

function routeData(record: RouteRecord): Record<string, unknown> {
  return {
    id: record.id,
    method: record.method,
    path: record.path,
    middleware: [...record.middleware],
    handler: record.handler,
    owner: record.owner,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    revision: record.revision,
  };
}
