import FindMyWay from 'find-my-way';
import type { RouteOptions } from 'fastify';

/**
 * Which methods a path is served with, for 405 answers and their `Allow`
 * header: Fastify answers a known path asked with another method as not
 * found. Fed by Fastify's onRoute hook, so it always equals the real routes.
 */
export class AllowedMethods {
  readonly #byTemplate = new Map<string, Set<string>>();
  #router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1> | undefined;

  /** For Fastify's onRoute hook. CORS's catch-all OPTIONS route is not a resource. */
  readonly record = (route: RouteOptions): void => {
    if (route.url === '*') return;
    const methods = this.#byTemplate.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    if (methods.has('GET')) methods.add('HEAD');
    this.#byTemplate.set(route.url, methods);
    this.#router = undefined;
  };

  /** The methods of the resource at `path`, or undefined when no route has that path. */
  at(path: string): readonly string[] | undefined {
    this.#router ??= this.#build();
    const found = this.#router.find('GET', path);
    // An empty segment taken for a parameter (`/v1/routing/`) names no resource.
    if (found === null || Object.values(found.params).some((value) => value === '')) return undefined;
    return [...(found.store as Set<string>)];
  }

  #build(): FindMyWay.Instance<FindMyWay.HTTPVersion.V1> {
    const router = FindMyWay({ maxParamLength: Number.MAX_SAFE_INTEGER });
    for (const [template, methods] of this.#byTemplate) router.on('GET', template, () => {}, methods);
    return router;
  }
}
