import type { AssetService, Timers, Visibility, WorkspacePolicy as Policy } from '@switchyard/core';
import type {
  Asset,
  AssetServiceServer,
  BatchDeleteAssetsRequest,
  BatchDeleteAssetsResponse,
  DeleteAssetRequest,
  DeleteAssetResponse,
  GetAssetRequest,
  GetWorkspaceUsageRequest,
  ListAssetsRequest,
  ListAssetsResponse,
  ReplaceAssetRequest,
  ReplaceMetadata,
  UploadAssetRequest,
  UploadMetadata,
  WorkspaceUsage,
  UpdateAssetRequest,
  CreateSignedUrlRequest,
  SignedUrl,
  RevokeSignedUrlsRequest,
  RevokeSignedUrlsResponse,
  GetWorkspacePolicyRequest,
  SetWorkspacePolicyRequest,
  WorkspacePolicy,
  AssetWatchEvent,
  WatchAssetsRequest,
  ListAssetChangesRequest,
  ListAssetChangesResponse,
  ListAssetVersionsRequest,
  ListAssetVersionsResponse,
  ReadAssetVersionRequest,
  ReadAssetVersionResponse,
  RestoreAssetVersionRequest,
  ListTrashRequest,
  ListTrashResponse,
  RestoreAssetRequest,
  PurgeAssetRequest,
  PurgeAssetResponse,
} from '../gen/switchyard/v1/assets.js';
import {
  assetChangeToMessage,
  assetToMessage,
  assetVersionToMessage,
  assetWatchEventToMessage,
  optional,
  trashedAssetToMessage,
} from './convert.js';
import { streamChunks } from './file-handlers.js';
import { writeEvents } from './event-stream.js';
import type { Rpc } from './rpc.js';
import { readUploadStream, type UploadStream } from './upload-stream.js';

export interface AssetHandlerOptions {
  /** UPLOAD_IDLE_TIMEOUT_MS: how long an upload stream may go without a message; 0 waits forever. */
  readonly uploadIdleTimeoutMs?: number | undefined;
  /** Where that timeout is scheduled (the system's timers by default). */
  readonly timers?: Timers | undefined;
}

export function assetHandlers(assets: AssetService, rpc: Rpc, options: AssetHandlerOptions = {}): AssetServiceServer {
  const idleTimeoutMs = options.uploadIdleTimeoutMs ?? 0;
  const { timers } = options;
  return {
    uploadAsset: rpc.clientStream<UploadAssetRequest, Asset>('UploadAsset', async (call, { principal }) => {
      const upload = await readUploadStream<UploadMetadata>(call, {
        inMetadata: (metadata, name) => metadata[name] !== '',
        idleTimeoutMs,
        timers,
      });
      const { label, filename, declaredType, visibility } = upload.metadata;
      // Not up front: take the stream's trailer, known once the body has ended.
      const input = {
        body: upload.body,
        label: label !== '' ? label : () => upload.trailing('label'),
        visibility:
          visibility !== '' ? (visibility as Visibility) : () => optional(upload.trailing('visibility') ?? '') as Visibility | undefined,
        filename: optional(filename),
        declaredType: optional(declaredType),
      };
      return assetToMessage(await explained(upload, assets.upload(principal, input)));
    }),

    replaceAsset: rpc.clientStream<ReplaceAssetRequest, Asset>('ReplaceAsset', async (call, { principal }) => {
      const upload = await readUploadStream<ReplaceMetadata>(call, {
        inMetadata: (metadata, name) => name === 'visibility' && metadata.visibility !== '',
        idleTimeoutMs,
        timers,
      });
      const { id, filename, declaredType, visibility } = upload.metadata;
      const input = {
        body: upload.body,
        visibility:
          visibility !== '' ? (visibility as Visibility) : () => optional(upload.trailing('visibility') ?? '') as Visibility | undefined,
        filename: optional(filename),
        declaredType: optional(declaredType),
      };
      return assetToMessage(await explained(upload, assets.replace(principal, id, input)));
    }),

    getAsset: rpc.unary<GetAssetRequest, Asset>('GetAsset', async (request, { principal }) =>
      assetToMessage(await assets.get(principal, request.id)),
    ),

    listAssets: rpc.unary<ListAssetsRequest, ListAssetsResponse>('ListAssets', async (request, { principal }) => {
      const page = await assets.list(principal, {
        pageSize: request.pageSize,
        pageToken: request.pageToken,
        type: request.type,
        label: request.label,
        q: request.q,
      });
      return { assets: page.assets.map(assetToMessage), nextPageToken: page.nextPageToken };
    }),

    deleteAsset: rpc.unary<DeleteAssetRequest, DeleteAssetResponse>('DeleteAsset', async (request, { principal }) => {
      await assets.delete(principal, request.id, { purge: request.purge });
      return {};
    }),

    batchDeleteAssets: rpc.unary<BatchDeleteAssetsRequest, BatchDeleteAssetsResponse>(
      'BatchDeleteAssets',
      async (request, { principal }) => ({
        results: await assets.batchDelete(principal, request.ids),
      }),
    ),

    getWorkspaceUsage: rpc.unary<GetWorkspaceUsageRequest, WorkspaceUsage>('GetWorkspaceUsage', async (_request, { principal }) =>
      assets.usage(principal),
    ),

    updateAsset: rpc.unary<UpdateAssetRequest, Asset>('UpdateAsset', async (request, { principal }) =>
      assetToMessage(
        await assets.update(principal, request.id, {
          label: request.label,
          name: request.name,
          visibility: request.visibility as Visibility | undefined,
        }),
      ),
    ),

    createSignedUrl: rpc.unary<CreateSignedUrlRequest, SignedUrl>('CreateSignedUrl', async (request, { principal }) => {
      const { url, expiresAt } = await assets.createSignedUrl(principal, request.id, {
        expiresIn: Number(request.expiresIn),
        transform: request.transform,
      });
      return { url, expiresAt };
    }),

    revokeSignedUrls: rpc.unary<RevokeSignedUrlsRequest, RevokeSignedUrlsResponse>('RevokeSignedUrls', async (request, { principal }) => {
      await assets.revokeSignedUrls(principal, request.id);
      return {};
    }),

    getWorkspacePolicy: rpc.unary<GetWorkspacePolicyRequest, WorkspacePolicy>('GetWorkspacePolicy', async (_request, { principal }) =>
      policyToMessage(await assets.getPolicy(principal)),
    ),

    setWorkspacePolicy: rpc.unary<SetWorkspacePolicyRequest, WorkspacePolicy>('SetWorkspacePolicy', async (request, { principal }) => {
      const policy = await assets.setPolicy(principal, {
        allowedTypes: request.allowedTypes,
        maxUploadBytes: request.maxUploadBytes === undefined ? undefined : Number(request.maxUploadBytes),
        defaultVisibility: optional(request.defaultVisibility) as Visibility | undefined,
        stripImageMetadata: request.stripImageMetadata,
        keepVersions: request.keepVersions,
        retentionDays: request.retentionDays,
      });
      return policyToMessage(policy);
    }),

    watchAssets: rpc.serverStream<WatchAssetsRequest, AssetWatchEvent>('WatchAssets', (call, { principal, closing }) => {
      const { sinceRevision } = call.request;
      return writeEvents(
        call,
        closing,
        (signal) => assets.watch(principal, { sinceRevision: sinceRevision === undefined ? undefined : Number(sinceRevision), signal }),
        assetWatchEventToMessage,
      );
    }),

    listAssetChanges: rpc.unary<ListAssetChangesRequest, ListAssetChangesResponse>('ListAssetChanges', async (request, { principal }) => {
      const page = await assets.history(principal, request.id, { pageSize: request.pageSize, pageToken: request.pageToken });
      return { changes: page.changes.map(assetChangeToMessage), nextPageToken: page.nextPageToken };
    }),

    listAssetVersions: rpc.unary<ListAssetVersionsRequest, ListAssetVersionsResponse>(
      'ListAssetVersions',
      async (request, { principal }) => ({
        versions: (await assets.listVersions(principal, request.id)).map(assetVersionToMessage),
      }),
    ),

    readAssetVersion: rpc.serverStream<ReadAssetVersionRequest, ReadAssetVersionResponse>(
      'ReadAssetVersion',
      async (call, { principal }) => {
        const file = await assets.openVersion(principal, call.request.id, call.request.versionId);
        call.write({ version: assetVersionToMessage(file.version) });
        if (file.body) await streamChunks(file.body, call);
      },
    ),

    restoreAssetVersion: rpc.unary<RestoreAssetVersionRequest, Asset>('RestoreAssetVersion', async (request, { principal }) =>
      assetToMessage(await assets.restoreVersion(principal, request.id, request.versionId)),
    ),

    listTrash: rpc.unary<ListTrashRequest, ListTrashResponse>('ListTrash', async (request, { principal }) => {
      const page = await assets.listTrash(principal, { pageSize: request.pageSize, pageToken: request.pageToken });
      return { assets: page.assets.map(trashedAssetToMessage), nextPageToken: page.nextPageToken };
    }),

    restoreAsset: rpc.unary<RestoreAssetRequest, Asset>('RestoreAsset', async (request, { principal }) =>
      assetToMessage(await assets.restoreFromTrash(principal, request.id)),
    ),

    purgeAsset: rpc.unary<PurgeAssetRequest, PurgeAssetResponse>('PurgeAsset', async (request, { principal }) => {
      await assets.purgeFromTrash(principal, request.id);
      return {};
    }),
  };
}

function policyToMessage(policy: Policy): WorkspacePolicy {
  return {
    allowedTypes: [...policy.allowedTypes],
    maxUploadBytes: policy.maxUploadBytes,
    defaultVisibility: policy.defaultVisibility,
    stripImageMetadata: policy.stripImageMetadata,
    keepVersions: policy.keepVersions,
    retentionDays: policy.retentionDays,
  };
}

/**
 * When the body itself failed (cancel, a malformed stream), that failure is
 * the reason, whatever the library made of the broken stream. The body is
 * destroyed either way so no message is left unread.
 */
async function explained<T>(upload: Pick<UploadStream<unknown>, 'body' | 'bodyFailure'>, operation: Promise<T>): Promise<T> {
  try {
    return await operation;
  } catch (error) {
    throw upload.bodyFailure() ?? error;
  } finally {
    upload.body.destroy();
  }
}
