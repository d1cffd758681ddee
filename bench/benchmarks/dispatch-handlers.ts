/**
 * The handlers both sides of the dispatch benchmarks run: ten names spread
 * over the 1,000 routes, each answering a small JSON body with the params.
 */
export const DISPATCH_HANDLERS: Readonly<Record<string, (params: Record<string, string>) => unknown>> = Object.fromEntries(
  Array.from({ length: 10 }, (_, k) => [`handler${k}`, (params: Record<string, string>) => ({ handler: `handler${k}`, params })]),
);

export function handlerNameOf(routeIndex: number): string {
  return `handler${routeIndex % 10}`;
}
