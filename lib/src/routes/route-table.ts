/**
 * RouteTable: a compiled matcher over a fixed list of routes.
 *
 * - Precedence at every depth: static segment, then `:param`, then `*`; a branch
 *   that fails further down backtracks to the next candidate.
 * - Methods are matched case-insensitively. HEAD falls back to GET when no HEAD
 *   route matches (as find-my-way, Express and most routers do): the GET route
 *   is returned, since a HEAD response is a GET response without its body.
 * - Paths are case-sensitive and strict about trailing slashes: `/users/` does
 *   not match `/users`. A wildcard needs the slash before it and takes the rest,
 *   possibly empty: `/files/*` matches `/files/` and `/files/a/b`, not `/files`.
 * - Parameter values and the wildcard's rest are percent-decoded
 *   (`decodeURIComponent`); static segments compare by decoded text. Malformed
 *   encoding is `invalid_argument`. A parameter never matches an empty segment.
 *
 * The hot path allocates little beyond the result: fully static routes are one
 * Map lookup of the whole path, others a trie walk that reads the path in place.
 */
import { invalidArgument } from '../errors.js';
import { normalizeMethod, parseMethod } from './method.js';
import { parsePathPattern } from './path-pattern.js';
import { RouteTrie } from './route-trie.js';

/** What a table needs to know of a route; anything else on it is carried through untouched. */
export interface RouteTableEntry {
  readonly method: string;
  readonly path: string;
}

export interface RouteTableMatch<R> {
  readonly route: R;
  /** Decoded parameter values by name; `*` holds a wildcard's rest. */
  readonly params: Record<string, string>;
}

interface MethodRoutes<R> {
  readonly trie: RouteTrie<R>;
  /** Routes without parameters or wildcard, by their path in matching form. */
  readonly statics: Map<string, R>;
}

export class RouteTable<R extends RouteTableEntry = RouteTableEntry> {
  readonly #byMethod = new Map<string, MethodRoutes<R>>();
  readonly size: number;

  /** Validates every route (`invalid_argument`) and refuses two of one method and shape (`already_exists`). */
  constructor(routes: Iterable<R>) {
    let size = 0;
    for (const route of routes) {
      const method = parseMethod(route.method);
      const pattern = parsePathPattern(route.path);
      let table = this.#byMethod.get(method);
      if (table === undefined) this.#byMethod.set(method, (table = { trie: new RouteTrie<R>(), statics: new Map() }));
      table.trie.insert(pattern, route, escapeSegment);
      if (pattern.segments.every((segment) => segment.kind === 'static')) {
        table.statics.set(
          '/' + pattern.segments.map((segment) => (segment.kind === 'static' ? escapeSegment(segment.value) : '')).join('/'),
          route,
        );
      }
      size++;
    }
    this.size = size;
  }

  /** The most specific route for a method and a concrete path, with its params; undefined when none matches. */
  match(method: string, path: string): RouteTableMatch<R> | undefined {
    const found = this.#matchIn(this.#routesOf(method), path);
    if (found !== undefined || !isHead(method)) return found;
    return this.#matchIn(this.#byMethod.get('GET'), path);
  }

  #routesOf(method: string): MethodRoutes<R> | undefined {
    const routes = this.#byMethod.get(method);
    if (routes !== undefined) return routes;
    const normalized = normalizeMethod(method);
    return normalized === undefined || normalized === method ? undefined : this.#byMethod.get(normalized);
  }

  #matchIn(routes: MethodRoutes<R> | undefined, rawPath: string): RouteTableMatch<R> | undefined {
    if (routes === undefined || rawPath.charCodeAt(0) !== 0x2f /* "/" */) return undefined;
    const encoded = rawPath.includes('%');
    const path = encoded ? matchingForm(rawPath) : rawPath;
    const route = routes.statics.get(path);
    if (route !== undefined) return { route, params: {} };
    const trie = routes.trie;
    const entry = trie.find(path);
    if (entry === undefined) return undefined;
    const params = entry.params(path, trie.paramStart, trie.paramEnd, trie.wildcardStart);
    if (encoded) for (const name in params) params[name] = decodeURIComponent(params[name]!);
    return { route: entry.route, params };
  }
}

/*
 * Matching form: each segment decoded, except that "%" and "/" stay escaped so
 * segment bounds survive (an encoded slash is data, not a separator). A path
 * without "%" is already in matching form, which keeps the common case free.
 */
function escapeSegment(decoded: string): string {
  return decoded.replaceAll('%', '%25').replaceAll('/', '%2F');
}

function matchingForm(path: string): string {
  return path
    .split('/')
    .map((segment) => escapeSegment(decode(segment)))
    .join('/');
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalidArgument('path', 'malformed percent-encoding');
  }
}

function isHead(method: string): boolean {
  return method === 'HEAD' || (method.length === 4 && normalizeMethod(method) === 'HEAD');
}
