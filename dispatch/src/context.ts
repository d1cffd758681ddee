import type { Route } from '@switchyard/core/routes';
import type { Chain } from './chain.js';
import type { ErrorAnswer } from './error-answer.js';

/** What an adapter puts on the context besides the route: its framework's own request and response objects. */
export interface NativeContext {
  readonly request: unknown;
  readonly response: unknown;
}

/** The one object a request's middleware and handler share. */
export interface DispatchContext<N extends NativeContext = NativeContext> {
  /** The framework's request: a Web `Request`, Express's `req`, Fastify's `request`, node's `IncomingMessage`. */
  readonly request: N['request'];
  /** The framework's response (Express's `res`, Fastify's `reply`, node's `ServerResponse`); undefined for fetch. */
  readonly response: N['response'];
  /** Decoded parameter values of the matched route; `*` holds a wildcard's rest. */
  readonly params: Readonly<Record<string, string>>;
  /** The record that matched, from the revision below. */
  readonly route: Route;
  /** The table revision this request runs against, from match to handler. */
  readonly revision: number;
  /** Status of a returned value that is not a `Response` (default 200). */
  status: number;
  /** Adds a header to the answer the dispatcher writes for the returned value (before or after `next`). */
  setHeader(name: string, value: string): void;
  /** Headers set with `setHeader`, in order. */
  readonly headers: readonly (readonly [string, string])[];
  /** Per-request values middleware hands to what runs after it (the caller an `auth` middleware found). */
  readonly state: Record<string, unknown>;
}

const NO_HEADERS: readonly (readonly [string, string])[] = Object.freeze([]);

/** The context class: headers and state are allocated only when used, so a plain request costs one object. */
export class RequestContext<N extends NativeContext = NativeContext> implements DispatchContext<N> {
  status = 200;
  #headers: [string, string][] | undefined;
  #state: Record<string, unknown> | undefined;

  constructor(
    readonly request: N['request'],
    readonly response: N['response'],
    readonly params: Readonly<Record<string, string>>,
    readonly route: Route,
    readonly revision: number,
    /** What runs for this request: the record's composed chain, or its 501. Internal to the dispatcher. */
    readonly target: Chain<N> | ErrorAnswer,
  ) {}

  setHeader(name: string, value: string): void {
    (this.#headers ??= []).push([name, value]);
  }

  get headers(): readonly (readonly [string, string])[] {
    return this.#headers ?? NO_HEADERS;
  }

  get state(): Record<string, unknown> {
    return (this.#state ??= {});
  }
}
