import {
  invalidArgument,
  type Asset,
  type AssetChange,
  type AssetVersion,
  type TrashedAsset,
  type AssetWatchEvent,
  type StoredFile,
  type ByteRange,
  type Route,
  type RouteEvent,
  type RouteMatch,
  type ApplyRoutesResult,
  type RouteChangeEntry,
} from '@switchyard/core';
import type {
  Asset as AssetMessage,
  AssetChange as AssetChangeMessage,
  AssetWatchEvent as AssetWatchEventMessage,
  AssetVersion as AssetVersionMessage,
  TrashedAsset as TrashedAssetMessage,
} from '../gen/switchyard/v1/assets.js';
import type { FileInfo, ReadFileRequest } from '../gen/switchyard/v1/files.js';
import type {
  ApplyRoutesResponse,
  MatchRouteResponse,
  Route as RouteMessage,
  RouteChange as RouteChangeMessage,
  RouteEvent as RouteEventMessage,
} from '../gen/switchyard/v1/routes.js';

// Library records ↔ wire messages. ts-proto maps Timestamp to Date (useDate),
// int64 to number (forceLong=number) and bytes to Buffer.

export function routeToMessage(route: Route): RouteMessage {
  return {
    id: route.id,
    method: route.method,
    path: route.path,
    middleware: [...route.middleware],
    handler: route.handler,
    createdAt: route.createdAt,
    updatedAt: route.updatedAt,
    revision: route.revision,
    owner: route.owner,
  };
}

export function applyResultToMessage(result: ApplyRoutesResult): ApplyRoutesResponse {
  return {
    revision: result.revision,
    created: result.created.map(routeToMessage),
    updated: result.updated.map(({ before, after }) => ({ before: routeToMessage(before), after: routeToMessage(after) })),
    deleted: result.deleted.map(routeToMessage),
    unchanged: result.unchanged,
  };
}

export function routeChangeToMessage(change: RouteChangeEntry): RouteChangeMessage {
  return {
    revision: change.revision,
    time: change.time,
    actor: change.actor,
    owner: change.owner,
    kind: change.kind,
    before: change.before && routeToMessage(change.before),
    after: change.after && routeToMessage(change.after),
  };
}

export function routeEventToMessage(event: RouteEvent): RouteEventMessage {
  const { revision } = event;
  switch (event.type) {
    case 'reset':
      return { revision, reset: {}, moreInRevision: false };
    case 'upsert':
      return { revision, upsert: routeToMessage(event.route), moreInRevision: event.moreInRevision === true };
    case 'delete':
      return { revision, deletedId: event.id, moreInRevision: event.moreInRevision === true };
    case 'synced':
      return { revision, synced: {}, moreInRevision: false };
    case 'heartbeat':
      return { revision, heartbeat: {}, moreInRevision: false };
  }
}

export function matchToMessage(match: RouteMatch): MatchRouteResponse {
  return { route: routeToMessage(match.route), params: { ...match.params } };
}

export function assetToMessage(asset: Asset): AssetMessage {
  return {
    id: asset.id,
    type: asset.type,
    size: asset.size,
    url: asset.url,
    uploadedAt: asset.uploadedAt,
    label: asset.label,
    sha256: asset.sha256,
    width: asset.width,
    height: asset.height,
    createdAt: asset.createdAt,
    visibility: asset.visibility,
    name: asset.name,
    durationMs: asset.durationMs,
    pages: asset.pages,
    placeholder: asset.placeholder,
  };
}

export function assetChangeToMessage(change: AssetChange): AssetChangeMessage {
  return {
    type: change.type,
    revision: change.revision,
    time: change.time,
    actor: change.actor,
    assetId: change.assetId,
    asset: change.asset ? assetToMessage(change.asset) : undefined,
    previous: change.previous && { ...change.previous },
    reason: change.reason ?? '',
    versionIds: [...(change.versionIds ?? [])],
  };
}

export function assetVersionToMessage(version: AssetVersion): AssetVersionMessage {
  return {
    id: version.id,
    type: version.type,
    size: version.size,
    sha256: version.sha256,
    name: version.name,
    uploadedAt: version.uploadedAt,
    actor: version.actor,
    replacedAt: version.replacedAt,
    width: version.width,
    height: version.height,
    durationMs: version.durationMs,
    pages: version.pages,
    placeholder: version.placeholder,
  };
}

export function trashedAssetToMessage(trashed: TrashedAsset): TrashedAssetMessage {
  return {
    asset: assetToMessage(trashed),
    deletedAt: trashed.deletedAt,
    deletedBy: trashed.deletedBy,
    purgeAt: trashed.purgeAt,
  };
}

export function assetWatchEventToMessage(event: AssetWatchEvent): AssetWatchEventMessage {
  const { revision } = event;
  switch (event.type) {
    case 'change':
      return { revision, change: assetChangeToMessage(event.change) };
    case 'synced':
      return { revision, synced: {} };
    case 'reset':
      return { revision, reset: {} };
    case 'heartbeat':
      return { revision, heartbeat: {} };
  }
}

export function fileInfoToMessage(file: StoredFile): FileInfo {
  return {
    type: file.type,
    size: file.size,
    sha256: file.sha256,
    uploadedAt: file.uploadedAt,
    rangeStart: file.range.start,
    rangeEnd: file.range.end,
    visibility: file.visibility,
    name: file.name,
  };
}

/**
 * The requested range, if any. A missing start means 0 and a missing end
 * means "to the end of the file" (the library clamps an end past the size).
 */
export function rangeFromRequest(request: ReadFileRequest): ByteRange | undefined {
  const { rangeStart, rangeEnd } = request;
  if (rangeStart === undefined && rangeEnd === undefined) return undefined;
  const start = rangeStart ?? 0;
  const end = rangeEnd ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(start) || start < 0) throw invalidArgument('range_start', 'must be a non-negative byte offset');
  if (!Number.isSafeInteger(end) || end < 0) throw invalidArgument('range_end', 'must be a non-negative byte offset');
  if (end < start) throw invalidArgument('range_end', 'must not be before range_start');
  return { start, end };
}

/** Empty strings on the wire mean "not given". */
export function optional(value: string): string | undefined {
  return value === '' ? undefined : value;
}
