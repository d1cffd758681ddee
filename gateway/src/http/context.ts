import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { CallOptions } from '@connectrpc/connect';
import { TRACEPARENT_HEADER, type Logger, type ServerSpan } from '@switchyard/runtime';
import { authorizationOf } from './authorization.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** Unary calls that take longer than this are abandoned (`deadline_exceeded`); streams run as long as bytes flow. */
export const UNARY_TIMEOUT_MS = 15_000;

/** What a handler gets for one HTTP request. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  readonly log: Logger;
  /** Decoded path parameters of the matched route. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Aborted when the client goes away before its response is complete. */
  readonly signal: AbortSignal;
  /**
   * Options for a service call on behalf of this request: the caller's token
   * and the request id, nothing else. Throws 401 when the Authorization header
   * cannot be passed on (sent twice, not ASCII); see authorization.ts.
   */
  callOptions(options?: { streaming?: boolean }): CallOptions;
}

export function createContext(
  req: IncomingMessage,
  res: ServerResponse,
  fields: Pick<RequestContext, 'requestId' | 'params'> & {
    /** The request target; its query is parsed into `query` when first used. */
    readonly url: string;
    /** The gateway's logger; the request's own (bound to its id) is made when first used. */
    readonly gatewayLog: Logger;
    /** This request's span: its trace id goes in log lines, its `traceparent` to the service. */
    readonly span?: ServerSpan | undefined;
  },
): RequestContext {
  let log: Logger | undefined;
  let query: URLSearchParams | undefined;
  const { signal, abort } = connectionAbort(req.socket);
  res.once('close', () => {
    if (!res.writableFinished) abort();
  });
  return {
    req,
    res,
    requestId: fields.requestId,
    params: fields.params,
    get query() {
      return (query ??= queryOf(fields.url));
    },
    get log() {
      return (log ??= fields.gatewayLog.child({ requestId: fields.requestId, ...(fields.span ? { traceId: fields.span.traceId } : {}) }));
    },
    signal,
    callOptions: ({ streaming = false } = {}) => {
      const headers: Record<string, string> = { [REQUEST_ID_HEADER]: fields.requestId };
      if (fields.span) headers[TRACEPARENT_HEADER] = fields.span.traceparent;
      const authorization = authorizationOf(req);
      if (authorization !== undefined) headers['authorization'] = authorization;
      return { headers, signal, timeoutMs: streaming ? 0 : UNARY_TIMEOUT_MS };
    },
  };
}

const connectionAborts = new WeakMap<Socket, { readonly signal: AbortSignal; abort(): void }>();

/**
 * One AbortController per client connection, shared by the requests it
 * carries in turn: a response that closes before it is complete ends its
 * connection (HTTP/1.1), so aborting the connection's signal aborts exactly
 * that request. A controller per request was ~1 % of the server's samples in
 * the file-serve-16kib profile; the same load on the build before and after
 * (bench/tools/compare-builds.ts file): req/s 0.99-1.25 per round in two runs,
 * server CPU per request 0.95 and 0.89.
 */
function connectionAbort(socket: Socket): { readonly signal: AbortSignal; abort(): void } {
  let entry = connectionAborts.get(socket);
  if (entry === undefined) {
    const controller = new AbortController();
    entry = { signal: controller.signal, abort: () => controller.abort() };
    connectionAborts.set(socket, entry);
  }
  return entry;
}

function queryOf(url: string): URLSearchParams {
  const queryAt = url.indexOf('?');
  return new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1));
}
