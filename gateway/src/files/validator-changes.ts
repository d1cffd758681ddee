import type { ServiceClients } from '../service/clients.js';
import type { ValidatorCache } from './validator-cache.js';

/** AssetService calls that change nothing a file's answer depends on. */
const READS = new Set([
  'getAsset',
  'listAssets',
  'getWorkspaceUsage',
  'getWorkspacePolicy',
  'setWorkspacePolicy',
  'createSignedUrl',
  'watchAssets',
  'listAssetChanges',
  'listAssetVersions',
  'readAssetVersion',
  'listTrash',
]);

type Call = (...args: never[]) => unknown;

/**
 * The same clients, telling `cache` of every change to an asset made through
 * them (REST, the Connect protocol, tus: everything this gateway relays),
 * once the service has answered or failed: the asset named in the request
 * (delete, update, revoke) or in the answer (a replace, the append that
 * finishes an upload that replaces); when neither names it (a failed replace or
 * append may still have been stored), the whole cache. Uploads of new assets
 * change no existing file. Reads pass through untouched.
 */
export function watchChanges(clients: ServiceClients, cache: ValidatorCache): ServiceClients {
  const assets: Record<string, Call> = { ...(clients.assets as unknown as Record<string, Call>) };
  for (const [name, call] of Object.entries(assets)) {
    if (READS.has(name) || name === 'uploadAsset') continue;
    assets[name] = after(call, cache, idsOf, (answer) => stringField(answer, 'id'));
  }
  const uploads: Record<string, Call> = { ...(clients.uploads as unknown as Record<string, Call>) };
  // An upload's asset id is in the answer once its last byte is stored (the append, or a final concatenation's creation).
  for (const name of ['createUpload', 'appendUpload'])
    uploads[name] = after(
      uploads[name]!,
      cache,
      () => [],
      (answer) => stringField(answer, 'assetId'),
    );
  return Object.freeze({ ...clients, assets: Object.freeze(assets), uploads: Object.freeze(uploads) }) as unknown as ServiceClients;
}

/**
 * Calls `call`, then forgets the assets its request or answer names. A failure
 * naming none clears the cache; so does an answer naming none, except an
 * upload's (not finished, or a new asset: no file changed).
 */
function after(
  call: Call,
  cache: ValidatorCache,
  requested: (request: unknown) => readonly string[],
  answered: (answer: unknown) => string | undefined,
): Call {
  return async (...args: unknown[]) => {
    const ids = requested(args[0]);
    try {
      const answer = await (call as (...a: unknown[]) => Promise<unknown>)(...args);
      const id = answered(answer);
      if (id !== undefined) cache.forget(id);
      for (const each of ids) cache.forget(each);
      if (id === undefined && ids.length === 0 && !isUpload(answer)) cache.clear();
      return answer;
    } catch (error) {
      if (ids.length === 0) cache.clear();
      else for (const id of ids) cache.forget(id);
      throw error;
    }
  };
}

/** `id` of an unary request, `ids` of a batch; none for a stream (a replace's first message is the service's to read). */
function idsOf(request: unknown): readonly string[] {
  if (typeof request !== 'object' || request === null || Symbol.asyncIterator in request) return [];
  const { id, ids } = request as { id?: unknown; ids?: unknown };
  if (typeof id === 'string' && id !== '') return [id];
  if (Array.isArray(ids)) return ids.filter((value): value is string => typeof value === 'string');
  return [];
}

/** A non-empty string field of an answer (an Asset's `id`, a finished Upload's `assetId`). */
function stringField(answer: unknown, name: string): string | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const value = (answer as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isUpload(answer: unknown): boolean {
  return typeof answer === 'object' && answer !== null && 'assetId' in answer && 'offset' in answer;
}
