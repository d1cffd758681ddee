import { invalidRequest } from './api-error.js';
import type { RequestContext } from './context.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST';

/** One endpoint: a method and a path template whose `{name}` segments become parameters. */
export interface Endpoint {
  readonly method: HttpMethod;
  readonly path: string;
  /** The answer to a path parameter that does not percent-decode; by default 400 `invalid_argument`. */
  readonly malformedParam?: (name: string) => Error;
  handle(context: RequestContext): Promise<void>;
}

export type RouteLookup =
  | { readonly kind: 'found'; readonly endpoint: Endpoint; readonly params: Record<string, string> }
  | { readonly kind: 'wrong-method'; readonly allowed: readonly string[] }
  | { readonly kind: 'none' };

interface CompiledPath {
  readonly template: string;
  readonly segments: readonly string[];
  readonly endpoints: Endpoint[];
}

/**
 * A small exact-match router. The first template (in the order given) that
 * matches a path names the resource; the method then picks its endpoint, or
 * the answer is "wrong method" with what the resource allows. HEAD is served
 * by the GET endpoint unless one is given for HEAD.
 */
export class Router {
  readonly #paths: CompiledPath[] = [];

  constructor(readonly endpoints: readonly Endpoint[]) {
    for (const endpoint of endpoints) {
      let path = this.#paths.find((candidate) => candidate.template === endpoint.path);
      if (path === undefined) {
        path = { template: endpoint.path, segments: endpoint.path.split('/').slice(1), endpoints: [] };
        this.#paths.push(path);
      }
      path.endpoints.push(endpoint);
    }
  }

  find(method: string, pathname: string): RouteLookup {
    const segments = pathname.split('/').slice(1);
    for (const path of this.#paths) {
      const params = matchSegments(path.segments, segments, path.endpoints[0]?.malformedParam);
      if (params === undefined) continue;
      const endpoint = path.endpoints.find((e) => e.method === method) ?? (method === 'HEAD' ? path.endpoints.find((e) => e.method === 'GET') : undefined);
      if (endpoint) return { kind: 'found', endpoint, params };
      const allowed = path.endpoints.map((e) => e.method as string);
      if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
      return { kind: 'wrong-method', allowed };
    }
    return { kind: 'none' };
  }
}

function matchSegments(template: readonly string[], actual: readonly string[], malformed = defaultMalformed): Record<string, string> | undefined {
  if (template.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const want = template[i]!;
    const got = actual[i]!;
    if (want.startsWith('{') && want.endsWith('}')) {
      if (got === '') return undefined;
      params[want.slice(1, -1)] = decodeSegment(got, want.slice(1, -1), malformed);
    } else if (want !== got) {
      return undefined;
    }
  }
  return params;
}

function decodeSegment(raw: string, name: string, malformed: (name: string) => Error): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw malformed(name);
  }
}

function defaultMalformed(name: string): Error {
  return invalidRequest(name, 'malformed percent-encoding in the path');
}
