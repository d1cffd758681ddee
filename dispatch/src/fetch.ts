// The Web-standard adapter: `fetch(request) → Response`, for Hono (`app.notFound`),
// Bun.serve, Deno.serve, Cloudflare-style workers and @hono/node-server.
import type { DispatchContext } from './context.js';
import type { Dispatcher, DispatcherFor } from './dispatcher.js';
import { ERROR_HEADERS, ErrorAnswer, errorAnswer } from './error-answer.js';
import { JSON_TYPE, TEXT_TYPE, isThenable, resultKind } from './handler-result.js';
import { pathOf } from './request-path.js';

/** The context's native objects under the fetch adapter: the Web `Request`, no response object. */
export interface FetchNative {
  readonly request: Request;
  readonly response: undefined;
}

export interface FetchHandlerOptions {
  /** Answers what no record matches (another app's fetch, say); default a 404 in the error shape. */
  readonly fallback?: ((request: Request) => Response | Promise<Response>) | undefined;
}

/**
 * `(request) => Response`: dispatches by the table; a failure is a 500 in the
 * error shape (reported through onError or the logger), never a rejection.
 * A handler answers with a `Response`, a string (text), another value (JSON),
 * or undefined (204: there is no response object to have answered through).
 */
export function fetchHandler(
  dispatcher: DispatcherFor<FetchNative>,
  options: FetchHandlerOptions = {},
): (request: Request) => Response | Promise<Response> {
  const adapted = dispatcher as Dispatcher<FetchNative>;
  const fallback = options.fallback;
  return (request) => {
    const ctx = adapted.begin(request, undefined, request.method, pathOf(request.url));
    if (ctx === undefined) return fallback === undefined ? errorResponse(notFound(request)) : fallback(request);
    if (ctx instanceof ErrorAnswer) return errorResponse(ctx);
    let result: unknown;
    try {
      result = adapted.run(ctx);
    } catch (error) {
      return errorResponse(adapted.failed(error, ctx));
    }
    if (!isThenable(result)) return answer(adapted, result, ctx);
    return Promise.resolve(result).then(
      (value) => answer(adapted, value, ctx),
      (error: unknown) => errorResponse(adapted.failed(error, ctx)),
    );
  };
}

/** The chain's answer as a Response; one that cannot be made (JSON of a BigInt or a cycle, a bad header value) is the chain's failure, answered 500 like a throw. */
function answer(adapted: Dispatcher<FetchNative>, result: unknown, ctx: DispatchContext<FetchNative>): Response {
  try {
    return toResponse(result, ctx);
  } catch (error) {
    return errorResponse(adapted.failed(error, ctx));
  }
}

function toResponse(result: unknown, ctx: DispatchContext<FetchNative>): Response {
  switch (resultKind(result)) {
    case 'error':
      return errorResponse(result as ErrorAnswer);
    case 'response':
      return withHeaders(result as Response, ctx);
    case 'native':
      return new Response(null, { status: 204, headers: headersOf(ctx, undefined) });
    case 'text':
      return new Response(result as string, { status: ctx.status, headers: headersOf(ctx, TEXT_TYPE) });
    case 'json':
      return new Response(JSON.stringify(result), { status: ctx.status, headers: headersOf(ctx, JSON_TYPE) });
  }
}

function headersOf(ctx: DispatchContext<FetchNative>, contentType: string | undefined): Record<string, string> | [string, string][] {
  if (ctx.headers.length === 0) return contentType === undefined ? {} : { 'content-type': contentType };
  const headers: [string, string][] = contentType === undefined ? [] : [['content-type', contentType]];
  for (const [name, value] of ctx.headers) headers.push([name, value]);
  return headers;
}

/** A Response from a handler, with the headers middleware set on the context (a fetched Response's headers are immutable). */
function withHeaders(response: Response, ctx: DispatchContext<FetchNative>): Response {
  if (ctx.headers.length === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of ctx.headers) headers.append(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function errorResponse(answer: ErrorAnswer): Response {
  return new Response(answer.text, { status: answer.status, headers: ERROR_HEADERS });
}

function notFound(request: Request): ErrorAnswer {
  return errorAnswer('not_found', `no route matches ${request.method} ${pathOf(request.url)}`);
}
