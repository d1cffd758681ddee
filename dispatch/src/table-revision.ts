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
  /** Records left out because the core cannot compile them, with why. */
  readonly refused: readonly { readonly route: Route; readonly reason: string }[];

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
        return {
          method: route.method,
          path: route.path,
          route,
          chain: undefined,
          unimplemented: errorAnswer('unimplemented', describeUnknown(missing), details),
        };
      }
      const layers = route.middleware.map((name) => lookup(middleware, name)!);
      return {
        method: route.method,
        path: route.path,
        route,
        chain: composeChain(layers, lookup(handlers, route.handler)!),
        unimplemented: undefined,
      };
    });
    const { table, refused } = tableOf(compiled);
    this.table = table;
    this.refused = refused;
    this.unknown = Object.freeze(unknown);
  }
}

/**
 * The table of every record the core can compile. One it cannot (a pattern of
 * a newer grammar than this core's, two records of one shape from a faulty
 * source) is left out, so the rest still serve; the costlier one-by-one
 * build runs only then.
 */
function tableOf<N extends NativeContext>(
  compiled: readonly CompiledRoute<N>[],
): { table: RouteTable<CompiledRoute<N>>; refused: readonly { route: Route; reason: string }[] } {
  try {
    return { table: new RouteTable(compiled), refused: [] };
  } catch {
    const accepted: CompiledRoute<N>[] = [];
    const refused: { route: Route; reason: string }[] = [];
    for (const entry of compiled) {
      try {
        new RouteTable([...accepted, entry]);
        accepted.push(entry);
      } catch (error) {
        refused.push({ route: entry.route, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    return { table: new RouteTable(accepted), refused };
  }
}
