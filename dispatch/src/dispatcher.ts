import type { Route, RouteEvent } from '@switchyard/core/routes';
import { RequestContext, type DispatchContext, type NativeContext } from './context.js';
import { ErrorAnswer, INTERNAL_ANSWER, errorAnswer } from './error-answer.js';
import type { HandlerRegistry, Middleware, MiddlewareRegistry } from './registry.js';
import type { RouteTableSource } from './table-source.js';
import { TableRevision } from './table-revision.js';
import { describeUnknown, findUnknownNames, type UnknownNames } from './unknown-names.js';

/** Where the dispatcher writes what it reports (console, pino and most loggers fit). */
export interface DispatchLogger {
  warn(message: string): void;
  error(message: string): void;
}

/** `middleware` is optional until middleware names are declared; then it must be complete too. */
type MiddlewareOption<M extends string, N extends NativeContext> = string extends M
  ? { readonly middleware?: MiddlewareRegistry<M, N> | undefined }
  : { readonly middleware: MiddlewareRegistry<M, N> };

export type DispatcherOptions<H extends string = string, M extends string = string, N extends NativeContext = NativeContext> = {
  /** The live table: `watchRouteTable(…)` from @switchyard/client, or a core `SyncedRouteTable`. */
  readonly table: RouteTableSource;
  /** Handlers by the names records use. */
  readonly handlers: HandlerRegistry<H, N>;
  /** Called once for each record that arrives naming something unregistered (its requests answer 501). */
  readonly onUnknown?: ((unknown: UnknownNames) => void) | undefined;
  /** Called with what a handler or middleware threw (or rejected with), and the request's context. */
  readonly onError?: ((error: unknown, ctx: DispatchContext<N>) => void) | undefined;
  /** Unknown names are logged with `warn`, failures with `error` (unless `onError` takes them). Default console; null for none. */
  readonly logger?: DispatchLogger | null | undefined;
} & MiddlewareOption<M, N>;

/** Counters for a service's metrics, since the dispatcher was created. */
export interface DispatchMetrics {
  /** Records reported as naming something unregistered (each arrival of such a record once). */
  readonly unknownReported: number;
  /** Requests answered 501 because their record names something unregistered. */
  readonly unimplementedAnswered: number;
  /** Requests whose handler or middleware threw. */
  readonly failures: number;
}

/**
 * Dispatches requests by a live route table. Adapters (`@switchyard/dispatch/fetch`,
 * `/express`, `/fastify`, `/node`) call `begin`, `run` and `failed`; a custom
 * adapter can do the same.
 */
export interface Dispatcher<N extends NativeContext = NativeContext> {
  /** The revision requests starting now are dispatched against. */
  readonly revision: number;
  /**
   * Matches a request against the table as it is now and returns its context
   * (which keeps that revision), undefined when no record matches, or a 400
   * for a path whose percent-encoding is malformed.
   */
  // Function-typed properties, not methods: checked contravariantly, so a dispatcher typed for one framework is refused by another's adapter.
  readonly begin: (
    request: N['request'],
    response: N['response'],
    method: string,
    path: string,
  ) => DispatchContext<N> | ErrorAnswer | undefined;
  /** Runs the context's middleware and handler (may throw or reject), or gives the 501 of a record naming something unregistered. */
  readonly run: (ctx: DispatchContext<N>) => unknown;
  /**
   * Counts and reports a failure to `onError` (else to the logger, unless
   * `passedOn`: the framework's error handler will log it) and gives the 500
   * to answer with.
   */
  readonly failed: (error: unknown, ctx: DispatchContext<N>, options?: { readonly passedOn?: boolean }) => ErrorAnswer;
  /** The records of the current table that name a handler or middleware not registered. */
  unknown(): readonly UnknownNames[];
  metrics(): DispatchMetrics;
  /** Stops following the table; requests after it see the last revision. */
  close(): void;
}

/** What an adapter for native objects N takes: a dispatcher whose handlers were typed for N, or one typed for no framework. */
export type DispatcherFor<N extends NativeContext> = Dispatcher<N> | Dispatcher<NativeContext>;

/**
 * A dispatcher over `options.table`. Declare the names to have TypeScript
 * check that the registries are complete:
 * `createDispatcher<'getUser' | 'listUsers', 'auth', ExpressNative>({ … })`.
 */
export function createDispatcher<H extends string = string, M extends string = string, N extends NativeContext = NativeContext>(
  options: DispatcherOptions<H, M, N>,
): Dispatcher<N> {
  return new TableDispatcher<N>(options);
}

const MALFORMED_PATH = errorAnswer('invalid_argument', 'path: malformed percent-encoding', [
  { field: 'path', reason: 'malformed percent-encoding' },
]);

class TableDispatcher<N extends NativeContext> implements Dispatcher<N> {
  readonly #options: DispatcherOptions<string, string, N>;
  readonly #middleware: Readonly<Record<string, Middleware<N>>> | undefined;
  readonly #logger: DispatchLogger | null;
  /** The compiled current revision; dropped on a change and compiled again by the next request (once per burst). */
  #current: TableRevision<N> | undefined;
  /** Route id → the route revision last reported, so a snapshot's replay of a known record is not news. */
  readonly #reported = new Map<string, number>();
  readonly #unsubscribe: () => void;
  /** Set by close(): the revision every later request gets. */
  #closed = false;
  #unknownReported = 0;
  #unimplementedAnswered = 0;
  #failures = 0;

  constructor(options: DispatcherOptions<string, string, N>) {
    this.#options = options;
    this.#middleware = options.middleware;
    this.#logger = options.logger === undefined ? console : options.logger;
    this.#unsubscribe = options.table.onChange((event) => this.#changed(event));
    for (const route of options.table.routes()) this.#check(route);
  }

  get revision(): number {
    return this.#closed ? this.#current!.revision : this.#options.table.revision;
  }

  begin(request: N['request'], response: N['response'], method: string, path: string): DispatchContext<N> | ErrorAnswer | undefined {
    const current = (this.#current ??= this.#compile());
    let found;
    try {
      found = current.table.match(method, path);
    } catch (error) {
      if (isInvalidArgument(error)) return MALFORMED_PATH;
      throw error;
    }
    if (found === undefined) return undefined;
    return new RequestContext<N>(
      request,
      response,
      found.params,
      found.route.route,
      current.revision,
      found.route.unimplemented ?? found.route.chain!,
    );
  }

  run(ctx: DispatchContext<N>): unknown {
    const target = (ctx as RequestContext<N>).target;
    if (target instanceof ErrorAnswer) {
      this.#unimplementedAnswered++;
      return target;
    }
    return target(ctx);
  }

  failed(error: unknown, ctx: DispatchContext<N>, options: { readonly passedOn?: boolean } = {}): ErrorAnswer {
    this.#failures++;
    try {
      if (this.#options.onError) this.#options.onError(error, ctx);
      else if (!options.passedOn)
        this.#logger?.error(
          `dispatch: ${ctx.route.method} ${ctx.route.path} (route ${ctx.route.id}, handler ${ctx.route.handler}) failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
    } catch {
      // A reporting hook that throws must not turn one failure into a crash.
    }
    return INTERNAL_ANSWER;
  }

  unknown(): readonly UnknownNames[] {
    return (this.#current ??= this.#compile()).unknown;
  }

  metrics(): DispatchMetrics {
    return { unknownReported: this.#unknownReported, unimplementedAnswered: this.#unimplementedAnswered, failures: this.#failures };
  }

  close(): void {
    this.#unsubscribe();
    // Compiled now: left to the next request, it would be of a table that went on changing after close.
    this.#current ??= this.#compile();
    this.#closed = true;
  }

  #compile(): TableRevision<N> {
    const table = this.#options.table;
    // Read together, synchronously: the routes are those of this revision.
    const compiled = new TableRevision<N>(table.revision, table.routes(), this.#options.handlers, this.#middleware);
    for (const { route, reason } of compiled.refused)
      this.#logger?.error(
        `dispatch: route ${route.id} (${route.method} ${route.path}) cannot be served by this version of @switchyard/core and is left out: ${reason}`,
      );
    return compiled;
  }

  #changed(event: RouteEvent): void {
    this.#current = undefined;
    switch (event.type) {
      case 'upsert':
        return this.#check(event.route);
      case 'delete':
        this.#reported.delete(event.id);
        return;
      case 'synced': {
        // A fresh snapshot: records deleted while the source was away get no delete event, so forget those here.
        const routes = this.#options.table.routes();
        const present = new Set(routes.map((route) => route.id));
        for (const id of this.#reported.keys()) if (!present.has(id)) this.#reported.delete(id);
        for (const route of routes) this.#check(route);
        return;
      }
    }
  }

  /** Reports a record the moment it arrives naming something unregistered, once per version of it. */
  #check(route: Route): void {
    const unknown = findUnknownNames(route, this.#options.handlers, this.#middleware);
    if (unknown === undefined) return void this.#reported.delete(route.id);
    if (this.#reported.get(route.id) === route.revision) return;
    this.#reported.set(route.id, route.revision);
    this.#unknownReported++;
    try {
      this.#logger?.warn(`dispatch: ${describeUnknown(unknown)}; its requests answer 501`);
      this.#options.onUnknown?.(unknown);
    } catch {
      // Called from the table's change listener: a throwing hook must not stop the watch.
    }
  }
}

/** RouteTable refuses malformed percent-encoding with the core's `invalid_argument` (checked by shape: the browser-safe subpath has no error exports). */
function isInvalidArgument(error: unknown): error is Error {
  return error instanceof Error && (error as { code?: unknown }).code === 'invalid_argument';
}
