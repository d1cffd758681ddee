import type { IncomingMessage, ServerResponse } from 'node:http';
import { createContextValues, type CallOptions } from '@connectrpc/connect';
import { CALLER_LIFETIME, TRACEPARENT_HEADER, type CallerLifetime, type Logger, type ServerSpan } from '@switchyard/runtime';
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
  /** Ends when the client goes away before its response is complete. */
  readonly lifetime: CallerLifetime;
  /** Aborted when the client goes away before its response is complete (made when first read; `lifetime` costs less). */
  readonly signal: AbortSignal;
  /**
   * Options for a service call on behalf of this request: the caller's token
   * and the request id, nothing else, and the request's lifetime in the
   * context values (CALLER_LIFETIME; the transports end the call when it
   * ends). Throws 401 when the Authorization header cannot be passed on (sent
   * twice, not ASCII); see authorization.ts.
   */
  callOptions(options?: { streaming?: boolean }): CallOptions;
}

/** What createContext is given besides the request and response. */
type ContextFields = Pick<RequestContext, 'requestId' | 'params' | 'lifetime'> & {
  /** The request target; its query is parsed into `query` when first used. */
  readonly url: string;
  /** The gateway's logger; the request's own (bound to its id) is made when first used. */
  readonly gatewayLog: Logger;
  /** This request's span: its trace id goes in log lines, its `traceparent` to the service. */
  readonly span?: ServerSpan | undefined;
  /** Reads the response headers and trailers of the service calls (the API key's id, when a key authenticated them). */
  readonly onHeader?: ((header: Headers) => void) | undefined;
};

export function createContext(req: IncomingMessage, res: ServerResponse, fields: ContextFields): RequestContext {
  return new HttpRequestContext(req, res, fields);
}

/**
 * A class, not an object literal with getters: V8 gives every such literal a
 * hidden class of its own in the old generation, and those kept each request's
 * objects alive through young-generation GCs (bench/hand-written-parts.md#no-literal-getters).
 */
class HttpRequestContext implements RequestContext {
  readonly requestId: string;
  readonly params: Readonly<Record<string, string>>;
  readonly lifetime: CallerLifetime;
  readonly #fields: ContextFields;
  #log: Logger | undefined;
  #query: URLSearchParams | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    fields: ContextFields,
  ) {
    this.requestId = fields.requestId;
    this.params = fields.params;
    this.lifetime = fields.lifetime;
    this.#fields = fields;
  }

  get query(): URLSearchParams {
    return (this.#query ??= queryOf(this.#fields.url));
  }

  get log(): Logger {
    const { gatewayLog, requestId, span } = this.#fields;
    return (this.#log ??= gatewayLog.child({ requestId, ...(span ? { traceId: span.traceId } : {}) }));
  }

  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  callOptions({ streaming = false }: { streaming?: boolean } = {}): CallOptions {
    const { requestId, span, onHeader } = this.#fields;
    const headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestId };
    if (span) headers[TRACEPARENT_HEADER] = span.traceparent;
    const authorization = authorizationOf(this.req);
    if (authorization !== undefined) headers['authorization'] = authorization;
    return {
      headers,
      contextValues: createContextValues().set(CALLER_LIFETIME, this.lifetime),
      timeoutMs: streaming ? 0 : UNARY_TIMEOUT_MS,
      onHeader,
      // A client stream (an upload) names the key in its trailer: its headers went out before the caller was verified.
      onTrailer: onHeader,
    };
  }
}

function queryOf(url: string): URLSearchParams {
  const queryAt = url.indexOf('?');
  return new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1));
}
