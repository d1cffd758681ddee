// @switchyard/client for Node: gRPC (to the service), Connect and gRPC-Web (to
// the gateway), and REST. Browsers import `@switchyard/client/web`.
import { Http2SessionManager, createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import type { Interceptor, Transport } from '@connectrpc/connect';
import type { Asset } from '@switchyard/proto';
import { nodeBytesOf, nodeNameOf, nodeResumableSource, type ByteSource } from './node-sources.js';
import { PROTOCOLS, assertProtocol, type ClientOptions } from './options.js';
import { uploadResumably, type ResumableUploadClients, type ResumableUploadOptions } from './resumable-upload.js';
import { createRpcClient, type RpcClient } from './rpc-client.js';

export type SwitchyardClient = RpcClient<ByteSource>;

/**
 * Typed clients of RouteService, AssetService and FileService. `grpc` holds one
 * HTTP/2 connection (call `close()` when done); `connect` and `grpc-web` use
 * HTTP/1.1, which is what the gateway port speaks.
 */
export function createSwitchyardClient(options: ClientOptions): SwitchyardClient {
  const protocol = options.protocol ?? 'grpc';
  assertProtocol(protocol, PROTOCOLS);
  return createRpcClient(options, (interceptors) => nodeTransport(protocol, options, interceptors), nodeBytesOf, nodeNameOf);
}

function nodeTransport(protocol: string, options: ClientOptions, interceptors: Interceptor[]): { transport: Transport; close(): void } {
  const common = { baseUrl: options.baseUrl, interceptors, defaultTimeoutMs: options.timeoutMs };
  if (protocol === 'grpc') {
    const sessionManager = new Http2SessionManager(options.baseUrl);
    return { transport: createGrpcTransport({ ...common, sessionManager }), close: () => sessionManager.abort() };
  }
  const create = protocol === 'connect' ? createConnectTransport : createGrpcWebTransport;
  return { transport: create({ ...common, httpVersion: '1.1' }), close: () => {} };
}

/**
 * Uploads a file over UploadService in appends of `chunkBytes` (8 MiB), so a
 * dropped connection, a restarted service or a busy upload costs at most the
 * append under way: the helper asks the service for the committed offset and
 * goes on from there, `retries` times in a row at most, backing off; an error
 * for good (a bad token, a type the workspace policy refuses, an unknown
 * `replace` id) fails at once. Resolves with the finished asset.
 *
 * A path, a `Blob` or bytes is read again from any offset. A stream (Node or
 * web, or an async iterable) is read once: the append under way is held in
 * memory until it is committed, so it can be sent again; the length is
 * declared with the last append. With `uploadId`, `source` is the whole file
 * again and the bytes the upload holds are skipped. A path's (or `File`'s)
 * name is the asset's unless `filename` gives another.
 *
 * Aborting with `signal` rejects with `Code.Canceled` and leaves the upload
 * where it is (the bytes the service received are kept): resume it with
 * `uploadId` (learn it from `onUploadId`) until it expires, or end it with
 * `uploads.terminateUpload`. Node only: browsers cannot stream a request
 * body over Connect (upload there with tus to the gateway's /v1/uploads).
 */
export async function resumableUpload(
  clients: ResumableUploadClients,
  source: ByteSource,
  options?: ResumableUploadOptions,
): Promise<Asset> {
  return uploadResumably(clients, await nodeResumableSource(source), { ...options, filename: options?.filename ?? nodeNameOf(source) });
}

export * from './common.js';
export type { ByteSource } from './node-sources.js';
export type { ResumableUploadClients, ResumableUploadOptions } from './resumable-upload.js';
