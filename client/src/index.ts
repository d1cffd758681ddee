// @switchyard/client for Node: gRPC (to the service), Connect and gRPC-Web (to
// the gateway), and REST. Browsers import `@switchyard/client/web`.
import { Http2SessionManager, createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import type { Interceptor, Transport } from '@connectrpc/connect';
import { nodeBytesOf, type ByteSource } from './node-sources.js';
import { PROTOCOLS, assertProtocol, type ClientOptions } from './options.js';
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
  return createRpcClient(options, (interceptors) => nodeTransport(protocol, options, interceptors), nodeBytesOf);
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

export * from './common.js';
export type { ByteSource } from './node-sources.js';
