import type { WatchedRouteTable } from '@switchyard/client';

/** One `POST /v1/routing` of a GET route at `path`; anything but 201 breaks the run. Resolves with the new id. */
export async function createRouteOver(url: string, token: string, path: string): Promise<string> {
  const response = await fetch(`${url}/v1/routing`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path, handler: 'h' }),
  });
  if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/**
 * When each route's upsert reached a watched table: returns a function that
 * resolves with the `performance.now()` of the upsert of `id`, at once if it
 * has already come. Start it before the changes are made.
 */
export function upsertArrivals(table: WatchedRouteTable): (id: string) => Promise<number> {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  table.onChange((event) => {
    if (event.type !== 'upsert') return;
    arrived.set(event.route.id, performance.now());
    waiting.get(event.route.id)?.();
  });
  return async (id) => {
    if (!arrived.has(id)) await new Promise<void>((resolve) => waiting.set(id, resolve));
    waiting.delete(id);
    return arrived.get(id)!;
  };
}
