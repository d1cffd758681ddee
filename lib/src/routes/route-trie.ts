/**
 * The segment trie behind RouteTable, for one method. Children are tried in
 * precedence order (static, then parameter, then wildcard) at every depth, and a
 * failed branch backtracks, so `/a/:x/c` still matches `/a/b/c` when `/a/b/d`
 * exists.
 *
 * The walk reads the path in place (segment bounds from indexOf) and records
 * parameter bounds in reused typed arrays, so a lookup allocates nothing unless
 * a node has many static children (then one slice for a Map lookup).
 */
import { SwitchyardError } from '../errors.js';
import { paramsBuilder, type ParamsBuilder } from './params-builder.js';
import type { PathPattern } from './path-pattern.js';

export interface TrieEntry<R> {
  readonly route: R;
  /** The params of a match (values as they are in the path), from the bounds `find` leaves. */
  readonly params: ParamsBuilder;
}

/** Above this many static children a Map beats comparing each key in place. */
const LINEAR_SCAN_LIMIT = 6;

class TrieNode<R> {
  /** Static children: keys (segment text) and nodes at the same index. */
  readonly keys: string[] = [];
  readonly children: TrieNode<R>[] = [];
  byKey: Map<string, TrieNode<R>> | undefined = undefined;
  param: TrieNode<R> | undefined = undefined;
  /** The route whose pattern ends here. */
  exact: TrieEntry<R> | undefined = undefined;
  /** The route whose pattern ends here with a `*` segment. */
  wildcard: TrieEntry<R> | undefined = undefined;

  child(key: string): TrieNode<R> {
    const index = this.keys.indexOf(key);
    if (index !== -1) return this.children[index]!;
    const node = new TrieNode<R>();
    this.keys.push(key);
    this.children.push(node);
    if (this.keys.length > LINEAR_SCAN_LIMIT) this.byKey = new Map(this.keys.map((k, i) => [k, this.children[i]!]));
    return node;
  }
}

export class RouteTrie<R> {
  readonly #root = new TrieNode<R>();
  /** Bounds of the parameters bound on the current descent. Reused: matching is synchronous. */
  readonly paramStart = new Int32Array(64);
  readonly paramEnd = new Int32Array(64);
  /** Where the matched wildcard's rest starts, after a hit on a wildcard route. */
  wildcardStart = 0;

  /**
   * Adds a route; a route with the same shape already here is `already_exists`.
   * `key` turns a static segment's decoded text into the form paths are matched in.
   */
  insert(pattern: PathPattern, route: R, key: (decoded: string) => string): void {
    const entry: TrieEntry<R> = Object.freeze({ route, params: paramsBuilder(pattern.paramNames, pattern.hasWildcard) });
    // "/" lives under an empty static segment: the concrete "/" has one empty segment.
    let node = pattern.segments.length === 0 ? this.#root.child('') : this.#root;
    for (const segment of pattern.segments) {
      if (segment.kind === 'wildcard') {
        if (node.wildcard) throw duplicate(pattern);
        node.wildcard = entry;
        return;
      }
      node = segment.kind === 'static' ? node.child(key(segment.value)) : (node.param ??= new TrieNode<R>());
    }
    if (node.exact) throw duplicate(pattern);
    node.exact = entry;
  }

  /** The most specific route for a path that starts with "/"; bounds of its values are left in this trie's fields. */
  find(path: string): TrieEntry<R> | undefined {
    return this.#find(this.#root, path, 1, 0);
  }

  /** `start` is where the current segment begins; past the end of the path means the path is used up. */
  #find(node: TrieNode<R>, path: string, start: number, depth: number): TrieEntry<R> | undefined {
    const length = path.length;
    if (start > length) return node.exact;
    let end = path.indexOf('/', start);
    if (end === -1) end = length;
    const size = end - start;

    let next: TrieNode<R> | undefined;
    if (node.byKey !== undefined) {
      next = node.byKey.get(path.slice(start, end));
    } else {
      const keys = node.keys;
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k]!;
        if (key.length === size && path.startsWith(key, start)) {
          next = node.children[k];
          break;
        }
      }
    }
    if (next !== undefined) {
      const found = this.#find(next, path, end + 1, depth);
      if (found !== undefined) return found;
    }
    if (node.param !== undefined && size > 0) {
      this.paramStart[depth] = start;
      this.paramEnd[depth] = end;
      const found = this.#find(node.param, path, end + 1, depth + 1);
      if (found !== undefined) return found;
    }
    if (node.wildcard !== undefined) {
      this.wildcardStart = start;
      return node.wildcard;
    }
    return undefined;
  }
}

function duplicate(pattern: PathPattern): SwitchyardError {
  return new SwitchyardError('already_exists', `a route with the shape ${pattern.shape} is already in the table`, [
    { field: 'path', reason: 'duplicate method and path shape' },
  ]);
}
