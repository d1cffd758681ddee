// The Express 5 adapter: `app.use(expressDispatch(dispatcher))`. Express is an
// optional peer dependency; only its types are imported.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { DispatchContext } from './context.js';
import type { Dispatcher, DispatcherFor } from './dispatcher.js';
import { ErrorAnswer } from './error-answer.js';
import { isThenable } from './handler-result.js';
import { writeError, writeResult } from './node-response.js';

/** The context's native objects under the Express adapter. */
export interface ExpressNative {
  readonly request: Request;
  readonly response: Response;
}

/**
 * Express middleware. Paths are matched as Express gives them to middleware
 * (`req.path`: relative to where it is mounted). What no record matches goes
 * on with `next()`, so routes and middleware after it still answer; a handler
 * or middleware that throws goes to Express's error handling with
 * `next(error)` (after `onError`), as Express apps expect.
 */
export function expressDispatch(dispatcher: DispatcherFor<ExpressNative>): RequestHandler {
  const adapted = dispatcher as Dispatcher<ExpressNative>;
  return (req: Request, res: Response, next: NextFunction) => {
    const ctx = adapted.begin(req, res, req.method, req.path);
    if (ctx === undefined) return next();
    if (ctx instanceof ErrorAnswer) return writeError(res, ctx);
    const fail = (error: unknown): void => {
      adapted.failed(error, ctx, { passedOn: true });
      next(error);
    };
    let result: unknown;
    try {
      result = adapted.run(ctx);
    } catch (error) {
      return fail(error);
    }
    if (!isThenable(result)) return answer(res, result, ctx, fail);
    result.then((value) => answer(res, value, ctx, fail), fail);
  };
}

/** Writes the chain's answer; one that cannot be written (JSON of a BigInt, a bad header value) is the chain's failure, not an unhandled rejection. */
function answer(res: Response, value: unknown, ctx: DispatchContext<ExpressNative>, fail: (error: unknown) => void): void {
  try {
    writeResult(res, value, ctx);
  } catch (error) {
    fail(error);
  }
}
