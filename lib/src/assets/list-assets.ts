import { createHash } from 'node:crypto';
import { requireScope, type Principal } from '../auth/principal.js';
import { invalidArgument } from '../errors.js';
import { isId } from '../ids.js';
import type { AssetListQuery, AssetStore } from '../ports/asset-store.js';
import { validateLabel } from './label.js';
import { toAsset } from './to-asset.js';
import type { AssetListInput, AssetPage } from './types.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

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
  const binding = bindingOf(principal.workspace, input.type ?? '', label);
  const before = input.pageToken ? cursorOf(input.pageToken, binding) : undefined;
  const query: AssetListQuery = { before, limit: limit + 1, type, label };
  // One more than asked: whether another page follows is known without a second query.
  const records = await assetStore.list(principal.workspace, query);
  const page = records.slice(0, limit);
  const last = page.at(-1);
  return { assets: page.map((record) => toAsset(record, cdnUrl)), nextPageToken: records.length > limit && last ? tokenOf(last.id, binding) : '' };
}

function pageSizeOf(size: number | undefined): number {
  if (size === undefined || size === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw invalidArgument('pageSize', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return size;
}

function typeFilterOf(type: string | undefined): AssetListQuery['type'] {
  if (type === undefined || type === '') return undefined;
  const match = TYPE_FILTER.exec(type.toLowerCase());
  if (!match) throw invalidArgument('type', 'must be a media type such as image/png, or a top-level type such as image/*');
  return match[2] === '*' ? { prefix: `${match[1]}/` } : { exact: type.toLowerCase() };
}

/** What a token is only valid for: this workspace and these filters. */
function bindingOf(workspace: string, type: string, label: string | undefined): string {
  return createHash('sha256').update(JSON.stringify([workspace, type.toLowerCase(), label ?? null])).digest('base64url').slice(0, 16);
}

function tokenOf(lastId: string, binding: string): string {
  return Buffer.from(`1.${lastId}.${binding}`).toString('base64url');
}

function cursorOf(token: string, binding: string): string {
  const [version, lastId, boundTo, ...rest] = Buffer.from(token, 'base64url').toString('utf8').split('.');
  if (version !== '1' || rest.length > 0 || lastId === undefined || !isId('asset', lastId)) throw invalidArgument('pageToken', 'is not a page token of this listing');
  if (boundTo !== binding) throw invalidArgument('pageToken', 'was made for another workspace or other filters; list again from the first page');
  return lastId;
}
