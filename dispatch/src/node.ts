// The node:http adapter: `createServer(nodeListener(dispatcher))`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DispatchContext } from './context.js';
import type { Dispatcher, DispatcherFor } from './dispatcher.js';
import { ErrorAnswer, errorAnswer } from './error-answer.js';
import { isThenable } from './handler-result.js';
import { writeError, writeResult } from './node-response.js';
import { pathOf } from './request-path.js';

/** The context's native objects under the node:http adapter. */
export interface NodeNative {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
}

export interface NodeListenerOptions {
  /** Answers what no record matches; default a 404 in the error shape. */
  readonly fallback?: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
}

/**
 * A `request` listener: dispatches by the table; a failure is a 500 in the
 * error shape (reported through onError or the logger). A handler answers
 * with a value (see Handler) or through `ctx.response` and returns undefined.
 */
export function nodeListener(
  dispatcher: DispatcherFor<NodeNative>,
  options: NodeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const adapted = dispatcher as Dispatcher<NodeNative>;
  const fallback = options.fallback;
  return (req, res) => {
    const method = req.method ?? 'GET';
    const path = pathOf(req.url ?? '/');
    const ctx = adapted.begin(req, res, method, path);
    if (ctx === undefined)
      return fallback === undefined ? writeError(res, errorAnswer('not_found', `no route matches ${method} ${path}`)) : fallback(req, res);
    if (ctx instanceof ErrorAnswer) return writeError(res, ctx);
    let result: unknown;
    try {
      result = adapted.run(ctx);
    } catch (error) {
      return writeError(res, adapted.failed(error, ctx));
    }
    if (!isThenable(result)) return answer(adapted, res, result, ctx);
    result.then(
      (value) => answer(adapted, res, value, ctx),
      (error: unknown) => writeError(res, adapted.failed(error, ctx)),
    );
  };
}

/**
 * Writes the chain's answer. An answer that cannot be written (JSON of a
 * BigInt or a cycle, a header value with a line break) is the chain's
 * failure: thrown from a request listener, or from a promise's callback, it
 * would crash the process.
 */
function answer(adapted: Dispatcher<NodeNative>, res: ServerResponse, value: unknown, ctx: DispatchContext<NodeNative>): void {
  try {
    writeResult(res, value, ctx);
  } catch (error) {
    writeError(res, adapted.failed(error, ctx));
  }
}
