// @switchyard/client/web: Connect and gRPC-Web through the gateway, for
// browsers (no Node built-ins), and the REST client.
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-web';
import { assertProtocol, type ClientOptions, type Protocol } from './options.js';
import { createRpcClient, type RpcClient } from './rpc-client.js';
import { webBytesOf, webNameOf, type WebByteSource } from './web-sources.js';

const WEB_PROTOCOLS: readonly Protocol[] = Object.freeze(['connect', 'grpc-web']);

export type SwitchyardWebClient = RpcClient<WebByteSource>;

/**
 * Typed clients over `fetch`. Uploads need request streaming, which browsers
 * offer only over HTTP/2 and not for every protocol: in a browser, upload with
 * the REST client's `uploadAsset` (multipart), which works everywhere.
 */
export function createSwitchyardClient(options: ClientOptions): SwitchyardWebClient {
  const protocol = options.protocol ?? 'connect';
  assertProtocol(protocol, WEB_PROTOCOLS);
  return createRpcClient(
    options,
    (interceptors) => {
      const create = protocol === 'connect' ? createConnectTransport : createGrpcWebTransport;
      return { transport: create({ baseUrl: options.baseUrl, interceptors, defaultTimeoutMs: options.timeoutMs }), close: () => {} };
    },
    webBytesOf,
    webNameOf,
  );
}

export * from './common.js';
