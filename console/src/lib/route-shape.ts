// The shape of a route path as the server compares them for conflicts
// (lib/src/routes/path-pattern.ts): parameter names erased, static segments
// in one canonical encoding. A 409 does not name the route it collided with,
// so the console finds it in the live table by method and shape.

export function shapeOf(path: string): string {
  if (path === '/') return '/';
  return (
    '/' +
    path
      .slice(1)
      .split('/')
      .map((segment) => {
        if (segment.startsWith(':')) return ':';
        if (segment === '*') return '*';
        let decoded = segment;
        try {
          decoded = decodeURIComponent(segment);
        } catch {
          // Malformed: compared as written (the server would have refused it anyway).
        }
        return encodeURIComponent(decoded).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
      })
      .join('/')
  );
}

export function conflictOf<R extends { readonly id: string; readonly method: string; readonly path: string }>(
  routes: readonly R[],
  method: string,
  path: string,
  except?: string,
): R | undefined {
  const shape = shapeOf(path);
  return routes.find((route) => route.id !== except && route.method === method.toUpperCase() && shapeOf(route.path) === shape);
}
