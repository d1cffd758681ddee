import type { DispatchContext, NativeContext } from './context.js';
import type { Handler, Middleware } from './registry.js';

export type Chain<N extends NativeContext> = (ctx: DispatchContext<N>) => unknown;

/**
 * Composes a route's middleware around its handler once per table revision,
 * so a request walks ready-made functions. A request without middleware calls
 * its handler directly; with middleware it costs one `next` per layer.
 */
export function composeChain<N extends NativeContext>(middleware: readonly Middleware<N>[], handler: Handler<N>): Chain<N> {
  let chain: Chain<N> = handler;
  for (let index = middleware.length - 1; index >= 0; index--) chain = layer(middleware[index]!, chain);
  return chain;
}

function layer<N extends NativeContext>(middleware: Middleware<N>, inner: Chain<N>): Chain<N> {
  return (ctx) => {
    let called = false;
    return middleware(ctx, () => {
      // Running the rest twice would run the handler twice: a bug in the middleware, reported as one.
      if (called) return Promise.reject(new Error(`middleware called next() twice for route ${ctx.route.id}`));
      called = true;
      try {
        return Promise.resolve(inner(ctx));
      } catch (error) {
        return Promise.reject(error);
      }
    });
  };
}
