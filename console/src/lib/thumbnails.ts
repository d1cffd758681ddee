// Thumbnail urls through the server's image transformations. A public asset's
// is its file url with w/h/fit/format; a private asset's file answers 403
// without a signature, so its thumbnail is a short-lived signed url (the
// transform parameters are signed with it), cached until near its expiry.
import type { Api, Asset, Transform } from './api.js';
import { onSessionEnd } from './session.js';

/** 2x the 48px the list shows; one of the default TRANSFORM_SIZES. */
export const THUMB_SIZE = 96;
const THUMB: Transform = { w: THUMB_SIZE, h: THUMB_SIZE, fit: 'cover', format: 'auto' };
const SIGNED_SECONDS = 15 * 60;

export function transformUrl(url: string, transform: Transform): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(transform)) if (value !== undefined) params.set(key, String(value));
  return `${url}${url.includes('?') ? '&' : '?'}${params}`;
}

interface Signed {
  readonly url: string;
  readonly expiresAt: number;
}
// Keyed by the file url as well as the transform: a replace gives a new url, whose links are new.
const cache = new Map<string, Signed | Promise<string>>();

/** A url that shows `asset` transformed (or as it is, without a transform), signed when the asset is private. */
export async function viewUrl(api: Api, asset: Asset, transform?: Transform): Promise<string> {
  if (asset.visibility !== 'private') return transform ? transformUrl(asset.url, transform) : asset.url;
  const key = `${asset.url}#${JSON.stringify(transform ?? {})}`;
  const hit = cache.get(key);
  if (hit instanceof Promise) return hit;
  // Reused while at least a minute is left, so an image shown now still loads.
  if (hit && hit.expiresAt - Date.now() > 60_000) return hit.url;
  const pending = api.createSignedUrl(asset.id, { expiresIn: SIGNED_SECONDS, ...(transform ? { transform } : {}) }).then(
    (signed) => {
      cache.set(key, { url: signed.url, expiresAt: Date.parse(signed.expiresAt) });
      return signed.url;
    },
    (error: unknown) => {
      cache.delete(key);
      throw error;
    },
  );
  cache.set(key, pending);
  return pending;
}

export function thumbnailUrl(api: Api, asset: Asset): Promise<string> {
  return viewUrl(api, asset, THUMB);
}

/** Forgets signed urls of an asset whose links were revoked. */
export function forgetSigned(asset: Asset): void {
  for (const key of cache.keys()) if (key.startsWith(`${asset.url}#`)) cache.delete(key);
}

export function clearSignedCache(): void {
  cache.clear();
}

// Links signed for one session are not kept for the next (another workspace, another token).
onSessionEnd(clearSignedCache);
