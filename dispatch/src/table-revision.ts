import { RouteTable, type Route } from '@switchyard/core/routes';
import { composeChain, type Chain } from './chain.js';
import type { NativeContext } from './context.js';
import { errorAnswer, type ErrorAnswer } from './error-answer.js';
import { lookup, type Handler, type Middleware } from './registry.js';
import { describeUnknown, findUnknownNames, type UnknownNames } from './unknown-names.js';

/** A record ready to run: its chain, or the 501 it answers with when it names something unregistered. */
export interface CompiledRoute<N extends NativeContext> {
  readonly method: string;
  readonly path: string;
  readonly route: Route;
  readonly chain: Chain<N> | undefined;
  readonly unimplemented: ErrorAnswer | undefined;
}

/**
 * One revision of the table, compiled: the core's RouteTable (trie and static
 * map) over records whose middleware chains are composed. Immutable, so a
 * request that took it at its start sees this revision to its end.
 */
export class TableRevision<N extends NativeContext> {
  readonly table: RouteTable<CompiledRoute<N>>;
  readonly unknown: readonly UnknownNames[];

  constructor(
    readonly revision: number,
    routes: readonly Route[],
    handlers: Readonly<Record<string, Handler<N>>>,
    middleware: Readonly<Record<string, Middleware<N>>> | undefined,
  ) {
    const unknown: UnknownNames[] = [];
    const compiled = routes.map((route): CompiledRoute<N> => {
      const missing = findUnknownNames(route, handlers, middleware);
      if (missing !== undefined) {
        unknown.push(missing);
        const details = [
          ...(missing.handler === undefined ? [] : [{ field: 'handler', reason: `"${missing.handler}" is not registered` }]),
          ...missing.middleware.map((name) => ({ field: 'middleware', reason: `"${name}" is not registered` })),
        ];
        return { method: route.method, path: route.path, route, chain: undefined, unimplemented: errorAnswer('unimplemented', describeUnknown(missing), details) };
      }
      const layers = route.middleware.map((name) => lookup(middleware, name)!);
      return { method: route.method, path: route.path, route, chain: composeChain(layers, lookup(handlers, route.handler)!), unimplemented: undefined };
    });
    this.table = new RouteTable(compiled);
    this.unknown = Object.freeze(unknown);
  }
}
