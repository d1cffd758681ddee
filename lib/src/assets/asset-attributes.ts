import { requireScope, type Principal } from '../auth/principal.js';
import { invalidArgument } from '../errors.js';
import { assertId } from '../ids.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { Clock } from '../clock.js';
import { assetNotFound } from './asset-errors.js';
import { changeAuthor } from './change-author.js';
import { publicPathFor } from './blob-naming.js';
import { validateLabel } from './label.js';
import { validateName } from './asset-name.js';
import { MAX_SIGNED_URL_SECONDS, MIN_SIGNED_URL_SECONDS, type UrlSigner } from './signed-urls.js';
import { toAsset } from './to-asset.js';
import type { Asset, AssetUpdate, SignedUrl, SignedUrlInput } from './types.js';
import { validateVisibility } from './visibility.js';
import { parseTransform, TRANSFORM_PARAMS } from './transform/transform-params.js';
import type { VariantMaker } from './transform/variants.js';

interface Deps {
  readonly assetStore: AssetStore;
  readonly clock: Clock;
  readonly cdnUrl: string;
  readonly urlSigner: UrlSigner;
  readonly variants: VariantMaker;
}

/** Changes an asset's label, name or visibility; its file, url and version stay. */
export async function updateAsset(deps: Deps, principal: Principal, id: string, changes: AssetUpdate): Promise<Asset> {
  requireScope(principal, 'assets:write');
  const assetId = assertId('asset', id);
  if (typeof changes !== 'object' || changes === null) throw invalidArgument('changes', 'must be an object');
  const label = changes.label === undefined ? undefined : validateLabel(changes.label);
  const name = changes.name === undefined ? undefined : validateName(changes.name);
  const visibility = validateVisibility(changes.visibility);
  const written = await deps.assetStore.update(
    principal.workspace,
    assetId,
    { label, name, visibility },
    changeAuthor(principal, deps.clock),
  );
  if (!written) throw assetNotFound(assetId);
  return toAsset(written.record, deps.cdnUrl);
}

/**
 * A url of the asset's current file with a signature that expires. It names
 * the current blob, so a replace or delete ends it like the plain url; a
 * revocation ends it through the link epoch it was signed with.
 */
export async function createSignedUrl(deps: Deps, principal: Principal, id: string, input: SignedUrlInput): Promise<SignedUrl> {
  requireScope(principal, 'assets:read');
  const assetId = assertId('asset', id);
  const expiresIn = input?.expiresIn;
  if (!Number.isSafeInteger(expiresIn) || expiresIn < MIN_SIGNED_URL_SECONDS || expiresIn > MAX_SIGNED_URL_SECONDS) {
    throw invalidArgument('expiresIn', `must be a whole number of seconds from ${MIN_SIGNED_URL_SECONDS} to ${MAX_SIGNED_URL_SECONDS}`);
  }
  const params = transformParams(input.transform, deps.variants.config.sizes);
  const record = await deps.assetStore.get(principal.workspace, assetId);
  if (!record) throw assetNotFound(assetId);
  const expires = Math.floor(deps.clock.now().getTime() / 1000) + expiresIn;
  const path = publicPathFor(record.id, record.blobId, record.type);
  const query = deps.urlSigner.sign(path, record.linkEpoch, expires, params);
  return Object.freeze({ url: `${deps.cdnUrl}/${path}?${query}`, expiresAt: new Date(expires * 1000) });
}

/** A signed url's transform as query parameters, validated as a file url's would be (`format=auto` included). */
function transformParams(transform: SignedUrlInput['transform'], sizes: readonly number[]): [string, string][] {
  if (transform === undefined || transform === null) return [];
  if (typeof transform !== 'object') throw invalidArgument('transform', 'must be an object');
  const params: [string, string][] = [];
  for (const name of TRANSFORM_PARAMS) {
    const value = transform[name];
    if (value !== undefined) params.push([name, String(value)]);
  }
  if (params.length === 0) return [];
  const query = Object.fromEntries(params);
  parseTransform({ ...query, format: query['format'] === 'auto' ? undefined : query['format'] }, sizes);
  return params;
}

/** Raises the asset's link epoch: every signed url made before stops working at once. */
export async function revokeSignedUrls(deps: Deps, principal: Principal, id: string): Promise<void> {
  requireScope(principal, 'assets:write');
  const assetId = assertId('asset', id);
  const written = await deps.assetStore.update(principal.workspace, assetId, { revokeLinks: true }, changeAuthor(principal, deps.clock));
  if (!written) throw assetNotFound(assetId);
}
