import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { ApplyRoutesResponse, Asset, MatchRouteResponse, Route, RouteChange } from '@switchyard/proto';
import type { z } from 'zod';
import type { ApplyRoutesResultSchema, RouteChangeSchema } from './route-code-schemas.js';
import { ApiError } from '../http/api-error.js';
import type { AssetView, RouteMatchView, RouteView } from './schemas.js';

// The JSON the REST API answers with (its shapes are the zod schemas in schemas.ts): the spec's field names, camelCase,
// times in ISO 8601 UTC with `Z`, plus the project's extras for assets
// (label, name, sha256, and the media facts that could be read: width/height,
// durationMs, pages, placeholder).

export type { AssetView, RouteMatchView, RouteView };
export type ApplyRoutesResultView = z.infer<typeof ApplyRoutesResultSchema>;
export type RouteChangeView = z.infer<typeof RouteChangeSchema>;

export function routeView(route: Route): RouteView {
  return {
    id: route.id,
    method: route.method,
    path: route.path,
    middleware: [...route.middleware],
    handler: route.handler,
    createdAt: isoTime(route.createdAt, 'createdAt'),
    updatedAt: isoTime(route.updatedAt ?? route.createdAt, 'updatedAt'),
    revision: Number(route.revision),
    owner: route.owner,
  };
}

/** What an apply or rollback did. */
export function applyResultView(result: ApplyRoutesResponse): ApplyRoutesResultView {
  return {
    revision: Number(result.revision),
    created: result.created.map(routeView),
    updated: result.updated.map((update) => ({ before: routeView(present(update.before)), after: routeView(present(update.after)) })),
    deleted: result.deleted.map(routeView),
    unchanged: result.unchanged,
  };
}

export function routeChangeView(change: RouteChange): RouteChangeView {
  return {
    revision: Number(change.revision),
    time: isoTime(change.time, 'time'),
    actor: change.actor,
    owner: change.owner,
    kind: change.kind as RouteChangeView['kind'],
    before: change.before ? routeView(change.before) : null,
    after: change.after ? routeView(change.after) : null,
  };
}

function present(route: Route | undefined): Route {
  if (route === undefined)
    throw new ApiError('internal', 'internal error', [], { cause: new Error('the service sent an update without a route') });
  return route;
}

export function assetView(asset: Asset): AssetView {
  return {
    id: asset.id,
    type: asset.type,
    size: Number(asset.size),
    url: asset.url,
    uploadedAt: isoTime(asset.uploadedAt, 'uploadedAt'),
    label: asset.label,
    name: asset.name,
    sha256: asset.sha256,
    ...(asset.width === undefined ? {} : { width: asset.width }),
    ...(asset.height === undefined ? {} : { height: asset.height }),
    ...(asset.durationMs === undefined ? {} : { durationMs: asset.durationMs }),
    ...(asset.pages === undefined ? {} : { pages: asset.pages }),
    ...(asset.placeholder === undefined ? {} : { placeholder: asset.placeholder }),
    visibility: asset.visibility === 'private' ? 'private' : 'public',
  };
}

export function routeMatchView(match: MatchRouteResponse): RouteMatchView {
  if (match.route === undefined)
    throw new ApiError('internal', 'internal error', [], { cause: new Error('MatchRoute answered without a route') });
  return { route: routeView(match.route), params: { ...match.params } };
}

/** `2024-05-01T12:00:00.000Z`. */
export function isoTime(timestamp: Timestamp | undefined, field: string): string {
  if (timestamp === undefined) throw new ApiError('internal', 'internal error', [], { cause: new Error(`the service sent no ${field}`) });
  // The routes of one apply (and of one revision in a watch) share their times: 10,000 conversions of one instant become one (route-apply-5000).
  if (timestamp.seconds !== lastTime.seconds || timestamp.nanos !== lastTime.nanos)
    lastTime = { seconds: timestamp.seconds, nanos: timestamp.nanos, iso: timestampDate(timestamp).toISOString() };
  return lastTime.iso;
}

/** The last time isoTime converted (one entry: consecutive calls mostly ask for the same instant); NaN nanos match none. */
let lastTime: { readonly seconds: bigint; readonly nanos: number; readonly iso: string } = { seconds: 0n, nanos: Number.NaN, iso: '' };
