import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Asset, MatchRouteResponse, Route } from '@switchyard/proto';
import { ApiError } from '../http/api-error.js';

// The JSON the REST API answers with: the spec's field names, camelCase,
// times in ISO 8601 UTC with `Z`, plus the project's extras for assets
// (label, sha256, and width/height for images whose size is known).

export interface RouteView {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly middleware: readonly string[];
  readonly handler: string;
  readonly createdAt: string;
}

export interface AssetView {
  readonly id: string;
  readonly type: string;
  readonly size: number;
  readonly url: string;
  readonly uploadedAt: string;
  readonly label: string;
  readonly sha256: string;
  readonly width?: number;
  readonly height?: number;
}

export interface RouteMatchView {
  readonly route: RouteView;
  readonly params: Readonly<Record<string, string>>;
}

export function routeView(route: Route): RouteView {
  return {
    id: route.id,
    method: route.method,
    path: route.path,
    middleware: [...route.middleware],
    handler: route.handler,
    createdAt: isoTime(route.createdAt, 'createdAt'),
  };
}

export function assetView(asset: Asset): AssetView {
  return {
    id: asset.id,
    type: asset.type,
    size: Number(asset.size),
    url: asset.url,
    uploadedAt: isoTime(asset.uploadedAt, 'uploadedAt'),
    label: asset.label,
    sha256: asset.sha256,
    ...(asset.width === undefined ? {} : { width: asset.width }),
    ...(asset.height === undefined ? {} : { height: asset.height }),
  };
}

export function routeMatchView(match: MatchRouteResponse): RouteMatchView {
  if (match.route === undefined) throw new ApiError('internal', 'internal error', [], { cause: new Error('MatchRoute answered without a route') });
  return { route: routeView(match.route), params: { ...match.params } };
}

/** `2024-05-01T12:00:00.000Z`. */
export function isoTime(timestamp: Timestamp | undefined, field: string): string {
  if (timestamp === undefined) throw new ApiError('internal', 'internal error', [], { cause: new Error(`the service sent no ${field}`) });
  return timestampDate(timestamp).toISOString();
}
