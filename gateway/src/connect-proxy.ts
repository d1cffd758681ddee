import type { IncomingMessage } from 'node:http';
import {
  Code,
  ConnectError,
  createContextKey,
  createContextValues,
  type CallOptions,
  type HandlerContext,
  type ServiceImpl,
} from '@connectrpc/connect';
import { AssetService, FileService, KeyService, RouteService, UploadService, WebhookService } from '@switchyard/proto';
import { connectAdapter, type ConnectEndpoints, type NodeHandler } from './connect-adapter.js';
import { SERVICE_ERROR_DETAILS_KEY, SERVICE_RETRY_AFTER_MS_KEY, toApiError, type ApiError } from './http/api-error.js';
import { authorizationOf } from './http/authorization.js';
import { UNARY_TIMEOUT_MS } from './http/context.js';
import { REQUEST_ID_HEADER } from './http/request-id.js';
import { keyIdListener, spanOf } from './app/request-state.js';
import { TRACEPARENT_HEADER } from '@switchyard/runtime';
import { sendError } from './http/respond.js';
import { CODE_NAME_OF } from './http-status.js';
import type { Slots } from './http/slots.js';
import { uploadsBusy } from './rest/assets.js';
import type { ServiceClients } from './service/clients.js';

/** Where the gateway serves the Connect protocol: the services' own paths (`/switchyard.v1.RouteService/GetRoute`). */
export const CONNECT_PATH_PREFIX = '/switchyard.v1.';
/** The gRPC service refuses messages over 4 MiB; refusing them here saves the trip. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

const requestIdKey = createContextKey<string>('', { description: 'x-request-id' });
const traceparentKey = createContextKey<string | undefined>(undefined, { description: 'traceparent' });
/** Notes the API key's id from the service's answer, for a request that presents a key (request-state.ts). */
const keyIdListenerKey = createContextKey<((header: Headers) => void) | undefined>(undefined, { description: 'key id listener' });
/** The caller's Authorization value as `authorizationOf` judged it from the raw request (Connect's headers keep only the first of several). */
const authorizationKey = createContextKey<() => string | undefined>(() => undefined, { description: 'authorization' });

/** Reads the Authorization header once per request; a refusal is thrown when the handler forwards it. */
function judgedAuthorization(req: IncomingMessage): () => string | undefined {
  try {
    const value = authorizationOf(req);
    return () => value;
  } catch (error) {
    const refusal = error as ApiError;
    return () => {
      throw new ConnectError(refusal.message, Code.Unauthenticated);
    };
  }
}

/**
 * The service's RPCs over the Connect protocol (and gRPC-Web), for browser and
 * Connect clients that would rather skip REST. Every call is relayed to the
 * gRPC service with the caller's token and the request id; uploads stream
 * through message by message, with backpressure both ways.
 */
export function createConnectProxy(
  clients: ServiceClients,
  uploadSlots: Slots,
  requestIdOf: (req: IncomingMessage) => string,
  fallback: NodeHandler,
  onHandlerFailure: (error: unknown) => void,
): ConnectEndpoints {
  return connectAdapter({
    readMaxBytes: MAX_MESSAGE_BYTES,
    contextValues: (req) =>
      createContextValues()
        .set(requestIdKey, requestIdOf(req))
        .set(authorizationKey, judgedAuthorization(req))
        .set(traceparentKey, spanOf(req)?.traceparent)
        .set(keyIdListenerKey, keyIdListener(req)),
    fallback,
    refuse: sendError,
    onHandlerFailure,
    routes(router) {
      router.service(RouteService, {
        createRoute: (request, ctx) => relay(clients.routes.createRoute(request, forward(ctx))),
        getRoute: (request, ctx) => relay(clients.routes.getRoute(request, forward(ctx))),
        matchRoute: (request, ctx) => relay(clients.routes.matchRoute(request, forward(ctx))),
        listRoutes: (request, ctx) => relay(clients.routes.listRoutes(request, forward(ctx))),
        updateRoute: (request, ctx) => relay(clients.routes.updateRoute(request, forward(ctx))),
        deleteRoute: (request, ctx) => relay(clients.routes.deleteRoute(request, forward(ctx))),
        watchRoutes: (request, ctx) => relayStream(clients.routes.watchRoutes(request, forward(ctx, true))),
        applyRoutes: (request, ctx) => relay(clients.routes.applyRoutes(request, forward(ctx))),
        listRouteChanges: (request, ctx) => relay(clients.routes.listRouteChanges(request, forward(ctx))),
        rollbackRoutes: (request, ctx) => relay(clients.routes.rollbackRoutes(request, forward(ctx))),
      } satisfies ServiceImpl<typeof RouteService>);
      router.service(AssetService, {
        uploadAsset: (requests, ctx) => inSlot(uploadSlots, () => relay(clients.assets.uploadAsset(requests, forward(ctx, true)))),
        replaceAsset: (requests, ctx) => inSlot(uploadSlots, () => relay(clients.assets.replaceAsset(requests, forward(ctx, true)))),
        getAsset: (request, ctx) => relay(clients.assets.getAsset(request, forward(ctx))),
        listAssets: (request, ctx) => relay(clients.assets.listAssets(request, forward(ctx))),
        deleteAsset: (request, ctx) => relay(clients.assets.deleteAsset(request, forward(ctx))),
        batchDeleteAssets: (request, ctx) => relay(clients.assets.batchDeleteAssets(request, forward(ctx))),
        getWorkspaceUsage: (request, ctx) => relay(clients.assets.getWorkspaceUsage(request, forward(ctx))),
        updateAsset: (request, ctx) => relay(clients.assets.updateAsset(request, forward(ctx))),
        createSignedUrl: (request, ctx) => relay(clients.assets.createSignedUrl(request, forward(ctx))),
        revokeSignedUrls: (request, ctx) => relay(clients.assets.revokeSignedUrls(request, forward(ctx))),
        getWorkspacePolicy: (request, ctx) => relay(clients.assets.getWorkspacePolicy(request, forward(ctx))),
        setWorkspacePolicy: (request, ctx) => relay(clients.assets.setWorkspacePolicy(request, forward(ctx))),
        watchAssets: (request, ctx) => relayStream(clients.assets.watchAssets(request, forward(ctx, true))),
        listAssetChanges: (request, ctx) => relay(clients.assets.listAssetChanges(request, forward(ctx))),
        listAssetVersions: (request, ctx) => relay(clients.assets.listAssetVersions(request, forward(ctx))),
        readAssetVersion: (request, ctx) => relayStream(clients.assets.readAssetVersion(request, forward(ctx, true))),
        restoreAssetVersion: (request, ctx) => relay(clients.assets.restoreAssetVersion(request, forward(ctx))),
        listTrash: (request, ctx) => relay(clients.assets.listTrash(request, forward(ctx))),
        restoreAsset: (request, ctx) => relay(clients.assets.restoreAsset(request, forward(ctx))),
        purgeAsset: (request, ctx) => relay(clients.assets.purgeAsset(request, forward(ctx))),
      } satisfies ServiceImpl<typeof AssetService>);
      router.service(FileService, {
        readFile: (request, ctx) => relayStream(clients.files.readFile(request, forward(ctx, true))),
      } satisfies ServiceImpl<typeof FileService>);
      router.service(UploadService, {
        createUpload: (request, ctx) => relay(clients.uploads.createUpload(request, forward(ctx))),
        appendUpload: (requests, ctx) => inSlot(uploadSlots, () => relay(clients.uploads.appendUpload(requests, forward(ctx, true)))),
        getUpload: (request, ctx) => relay(clients.uploads.getUpload(request, forward(ctx))),
        terminateUpload: (request, ctx) => relay(clients.uploads.terminateUpload(request, forward(ctx))),
      } satisfies ServiceImpl<typeof UploadService>);
      router.service(KeyService, {
        createKey: (request, ctx) => relay(clients.keys.createKey(request, forward(ctx))),
        listKeys: (request, ctx) => relay(clients.keys.listKeys(request, forward(ctx))),
        getKey: (request, ctx) => relay(clients.keys.getKey(request, forward(ctx))),
        revokeKey: (request, ctx) => relay(clients.keys.revokeKey(request, forward(ctx))),
        rollKey: (request, ctx) => relay(clients.keys.rollKey(request, forward(ctx))),
        getCaller: (request, ctx) => relay(clients.keys.getCaller(request, forward(ctx))),
      } satisfies ServiceImpl<typeof KeyService>);
      router.service(WebhookService, {
        createWebhook: (request, ctx) => relay(clients.webhooks.createWebhook(request, forward(ctx))),
        listWebhooks: (request, ctx) => relay(clients.webhooks.listWebhooks(request, forward(ctx))),
        getWebhook: (request, ctx) => relay(clients.webhooks.getWebhook(request, forward(ctx))),
        updateWebhook: (request, ctx) => relay(clients.webhooks.updateWebhook(request, forward(ctx))),
        deleteWebhook: (request, ctx) => relay(clients.webhooks.deleteWebhook(request, forward(ctx))),
        rotateWebhookSecret: (request, ctx) => relay(clients.webhooks.rotateWebhookSecret(request, forward(ctx))),
        testWebhook: (request, ctx) => relay(clients.webhooks.testWebhook(request, forward(ctx))),
        listDeliveries: (request, ctx) => relay(clients.webhooks.listDeliveries(request, forward(ctx))),
        resendDelivery: (request, ctx) => relay(clients.webhooks.resendDelivery(request, forward(ctx))),
        recoverDeliveries: (request, ctx) => relay(clients.webhooks.recoverDeliveries(request, forward(ctx))),
      } satisfies ServiceImpl<typeof WebhookService>);
    },
  });
}

/** Only the caller's token and the request id travel on; the call ends when the caller goes away. */
function forward(ctx: HandlerContext, streaming = false): CallOptions {
  const headers: Record<string, string> = { [REQUEST_ID_HEADER]: ctx.values.get(requestIdKey) };
  const traceparent = ctx.values.get(traceparentKey);
  if (traceparent !== undefined) headers[TRACEPARENT_HEADER] = traceparent;
  const authorization = ctx.values.get(authorizationKey)();
  if (authorization !== undefined) headers['authorization'] = authorization;
  const keyIdListener = ctx.values.get(keyIdListenerKey);
  return { headers, signal: ctx.signal, timeoutMs: streaming ? 0 : UNARY_TIMEOUT_MS, onHeader: keyIdListener, onTrailer: keyIdListener };
}

/** Runs an upload in one of the slots it shares with REST uploads, or refuses it (`unavailable`) when none is free. */
async function inSlot<T>(slots: Slots, run: () => Promise<T>): Promise<T> {
  const release = slots.take();
  if (release === undefined) throw new ConnectError(uploadsBusy(slots).message, Code.Unavailable);
  try {
    return await run();
  } finally {
    release();
  }
}

async function relay<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw relayedError(error);
  }
}

async function* relayStream<T>(messages: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* messages;
  } catch (error) {
    throw relayedError(error);
  }
}

/**
 * The service's error as the caller should see it: code, message and details
 * kept, the service's own response headers dropped (they describe the gRPC
 * hop, not this response), and the same generic message as REST for failures
 * the service did not describe itself.
 */
function relayedError(error: unknown): ConnectError {
  const original = ConnectError.from(error);
  const safe = toApiError(error);
  const code = CODE_NAME_OF[original.code] === safe.code ? original.code : Code.Internal;
  const details = original.metadata.get(SERVICE_ERROR_DETAILS_KEY);
  const retryAfterMs = original.metadata.get(SERVICE_RETRY_AFTER_MS_KEY);
  const trailers: Record<string, string> = {};
  if (details !== null) trailers[SERVICE_ERROR_DETAILS_KEY] = details;
  // A rate limit's wait, for Connect clients as for REST ones (where it becomes Retry-After).
  if (retryAfterMs !== null) trailers[SERVICE_RETRY_AFTER_MS_KEY] = retryAfterMs;
  const relayed = new ConnectError(safe.message, code, Object.keys(trailers).length === 0 ? undefined : trailers);
  if (safe.message === original.rawMessage) relayed.details = original.details;
  return relayed;
}
