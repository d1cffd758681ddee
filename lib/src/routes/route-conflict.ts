import { isSwitchyardError, SwitchyardError } from '../errors.js';
import type { RouteStore } from '../ports/route-store.js';

/**
 * A write the store refused because another route of the workspace has the
 * same method and path shape: the refusal names that route (its id, method
 * and pattern), so a person or a client can open it, without another call.
 * Looked up only after the refusal; other errors pass through untouched.
 */
export async function nameTheConflict<T>(
  store: RouteStore,
  workspace: string,
  route: { readonly id: string; readonly method: string; readonly shape: string },
  write: Promise<T>,
): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (!isSwitchyardError(error) || error.code !== 'already_exists') throw error;
    const records = await store.list(workspace).catch(() => []);
    const taken = records.find((record) => record.id !== route.id && record.method === route.method && record.shape === route.shape);
    if (taken === undefined) throw error;
    throw new SwitchyardError(
      'already_exists',
      `route ${taken.id} (${taken.method} ${taken.path}) already has this method and path shape`,
      [{ field: 'path', reason: `duplicate method and path shape: taken by route ${taken.id} (${taken.method} ${taken.path})` }],
      { cause: error },
    );
  }
}
