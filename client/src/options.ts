import type { Interceptor } from '@connectrpc/connect';

/** A bearer token, or a function asked before every call (to refresh it). */
export type TokenSource = string | (() => string | Promise<string>);

export interface ClientOptions {
  /**
   * Where to call: the service's gRPC address (`http://127.0.0.1:50051`) for
   * `protocol: 'grpc'`, the gateway (`http://127.0.0.1:8080`) for `connect`
   * and `grpc-web`.
   */
  readonly baseUrl: string;
  /** `grpc` (HTTP/2, internal services), `connect` or `grpc-web` (HTTP/1.1, through the gateway). Default `grpc`. */
  readonly protocol?: Protocol;
  readonly token?: TokenSource;
  /** Deadline of each unary call in milliseconds (uploads and file reads have none). */
  readonly timeoutMs?: number;
  /** Sent with every call. */
  readonly headers?: Readonly<Record<string, string>>;
}

export type Protocol = 'grpc' | 'connect' | 'grpc-web';

export const PROTOCOLS: readonly Protocol[] = Object.freeze(['grpc', 'connect', 'grpc-web']);

/** Adds `authorization: Bearer …` and the fixed headers to every call. */
export function headersInterceptor(options: Pick<ClientOptions, 'token' | 'headers'>): Interceptor {
  const { token, headers = {} } = options;
  return (next) => async (request) => {
    for (const [name, value] of Object.entries(headers)) request.header.set(name, value);
    if (token !== undefined) request.header.set('authorization', `Bearer ${typeof token === 'string' ? token : await token()}`);
    return next(request);
  };
}

export function assertProtocol(protocol: unknown, allowed: readonly Protocol[]): asserts protocol is Protocol {
  if (!allowed.includes(protocol as Protocol))
    throw new TypeError(`protocol must be one of ${allowed.join(', ')}; got ${String(protocol)}`);
}
