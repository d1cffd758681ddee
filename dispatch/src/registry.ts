import type { DispatchContext, NativeContext } from './context.js';

/**
 * A handler answers by what it returns: a Web `Response` as it is, a string as
 * text, any other value as JSON (status `ctx.status`), or undefined when it
 * answered through the framework's own response object itself.
 */
export type Handler<N extends NativeContext = NativeContext> = (ctx: DispatchContext<N>) => unknown;

/** Runs the rest of the chain (later middleware, then the handler) and resolves with its answer. */
export type Next = () => Promise<unknown>;

/**
 * Onion style: act before and after `await next()` and return its answer (or
 * another), or return an answer without calling `next` to stop there.
 */
export type Middleware<N extends NativeContext = NativeContext> = (ctx: DispatchContext<N>, next: Next) => unknown;

export type HandlerRegistry<H extends string, N extends NativeContext = NativeContext> = Readonly<Record<H, Handler<N>>>;
export type MiddlewareRegistry<M extends string, N extends NativeContext = NativeContext> = Readonly<Record<M, Middleware<N>>>;

/** An own property only: a record naming `constructor` or `toString` must not find Object.prototype's. */
export function lookup<T>(registry: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return registry !== undefined && Object.hasOwn(registry, name) ? registry[name] : undefined;
}
