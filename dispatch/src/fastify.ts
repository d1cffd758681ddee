// The Fastify 5 adapter: `app.register(fastifyDispatch(dispatcher))`. Fastify is
// an optional peer dependency; only its types are imported.
import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { DispatchContext } from './context.js';
import type { Dispatcher, DispatcherFor } from './dispatcher.js';
import { ERROR_HEADERS, ErrorAnswer } from './error-answer.js';
import { isThenable, resultKind } from './handler-result.js';
import { pathOf } from './request-path.js';

/** The context's native objects under the Fastify adapter. */
export interface FastifyNative {
  readonly request: FastifyRequest;
  readonly response: FastifyReply;
}

export interface FastifyDispatchOptions {
  /** The methods of the catch-all route; default every method a record can name. Leave out one another plugin registers on `/*` (e.g. OPTIONS for @fastify/cors). */
  readonly methods?: readonly HTTPMethods[] | undefined;
}

const METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * A plugin that registers one catch-all route (`/*` under the plugin's
 * prefix, matched relative to it; under a prefix, the prefix itself too), so
 * the app's own routes, more specific in Fastify's router, still win. What no record matches is Fastify's 404
 * (`reply.callNotFound()`, so a custom not-found handler answers it); a
 * handler or middleware that throws goes to Fastify's error handler (after
 * `onError`), as Fastify apps expect.
 */
export function fastifyDispatch(dispatcher: DispatcherFor<FastifyNative>, options: FastifyDispatchOptions = {}): FastifyPluginCallback {
  const adapted = dispatcher as Dispatcher<FastifyNative>;
  return (app: FastifyInstance, _options, done) => {
    const prefixLength = app.prefix.length;
    const handler = (request: FastifyRequest, reply: FastifyReply): unknown => {
      const path = pathOf(request.url);
      const ctx = adapted.begin(request, reply, request.method, prefixLength === 0 ? path : path.slice(prefixLength) || '/');
      if (ctx === undefined) return void reply.callNotFound();
      if (ctx instanceof ErrorAnswer) return sendError(reply, ctx);
      let result: unknown;
      try {
        result = adapted.run(ctx);
      } catch (error) {
        adapted.failed(error, ctx, { passedOn: true });
        throw error;
      }
      if (!isThenable(result)) return prepare(reply, result, ctx);
      return Promise.resolve(result).then(
        (value) => prepare(reply, value, ctx),
        (error: unknown) => {
          adapted.failed(error, ctx, { passedOn: true });
          throw error;
        },
      );
    };
    const method = [...(options.methods ?? METHODS)];
    app.route({ method, url: '/*', handler });
    // Under a prefix `/*` is `/api/*`, which `/api` itself does not match: `/` is (as `/api` and `/api/`), so a record for `/` answers there, as under Express's app.use('/api', …).
    if (prefixLength > 0) app.route({ method, url: '/', handler });
    done();
  };
}

/** Sets the status and headers for a returned value and hands it to Fastify to serialize and send. */
function prepare(reply: FastifyReply, result: unknown, ctx: DispatchContext<FastifyNative>): unknown {
  switch (resultKind(result)) {
    case 'error':
      return sendError(reply, result as ErrorAnswer);
    case 'native':
      return undefined;
    case 'response':
      for (const [name, value] of ctx.headers) reply.header(name, value);
      return result;
    case 'text':
    case 'json':
      for (const [name, value] of ctx.headers) reply.header(name, value);
      reply.code(ctx.status);
      return result;
  }
}

/** Sent here, so the handler gives Fastify undefined: a returned reply would be sent again. */
function sendError(reply: FastifyReply, answer: ErrorAnswer): undefined {
  reply.code(answer.status).headers(ERROR_HEADERS).send(answer.text);
  return undefined;
}
