import { requireScope, type Principal } from '../auth/principal.js';
import { invalidArgument } from '../errors.js';
import { isId } from '../ids.js';
import { bindingOf, decodePageToken, encodePageToken, pageSizeOf } from '../page-tokens.js';
import type { AssetListQuery, AssetStore } from '../ports/asset-store.js';
import { validateLabel } from './label.js';
import { namePrefixOf } from './asset-name.js';
import { toAsset } from './to-asset.js';
import type { AssetListInput, AssetPage } from './types.js';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../page-tokens.js';

/** `image/png` or `image/*`: the characters of RFC 6838 names, lower-cased. */
const TYPE_FILTER = /^([a-z0-9][a-z0-9!#$&^_.+-]{0,126})\/([a-z0-9][a-z0-9!#$&^_.+-]{0,126}|\*)$/;

/**
 * One page of a workspace's assets, newest first. Pages are cut by id (a
 * keyset, not an offset), so an asset added or deleted meanwhile never makes
 * a later page skip or repeat another; the page token carries the last id
 * and is bound to the workspace and the filters it was made for.
 */
export async function listAssets(assetStore: AssetStore, cdnUrl: string, principal: Principal, input: AssetListInput): Promise<AssetPage> {
  requireScope(principal, 'assets:read');
  const limit = pageSizeOf(input.pageSize);
  const type = typeFilterOf(input.type);
  const label = input.label === undefined ? undefined : validateLabel(input.label);
  const namePrefix = namePrefixOf(input.q);
  // The prefix joins the binding only when set, so tokens of listings without one stay valid across this change.
  const binding = bindingOf(
    principal.workspace,
    (input.type ?? '').toLowerCase(),
    label ?? null,
    ...(namePrefix === undefined ? [] : [namePrefix]),
  );
  const before = input.pageToken ? cursorOf(input.pageToken, binding) : undefined;
  const query: AssetListQuery = { before, limit: limit + 1, type, label, namePrefix };
  // One more than asked: whether another page follows is known without a second query.
  const records = await assetStore.list(principal.workspace, query);
  const page = records.slice(0, limit);
  const last = page.at(-1);
  return {
    assets: page.map((record) => toAsset(record, cdnUrl)),
    nextPageToken: records.length > limit && last ? encodePageToken([last.id], binding) : '',
  };
}

function typeFilterOf(type: string | undefined): AssetListQuery['type'] {
  if (type === undefined || type === '') return undefined;
  const match = TYPE_FILTER.exec(type.toLowerCase());
  if (!match) throw invalidArgument('type', 'must be a media type such as image/png, or a top-level type such as image/*');
  return match[2] === '*' ? { prefix: `${match[1]}/` } : { exact: type.toLowerCase() };
}

function cursorOf(token: string, binding: string): string {
  const [lastId] = decodePageToken(token, binding, 1);
  if (lastId === undefined || !isId('asset', lastId)) throw invalidArgument('pageToken', 'is not a page token of this listing');
  return lastId;
}
