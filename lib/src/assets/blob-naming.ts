import { invalidArgument } from '../errors.js';
import { isId } from '../ids.js';
import { assertBlobKey } from '../ports/blob-key.js';
import { extensionFor } from './extension.js';

/** Where the bytes live in the blob store: one folder per workspace, then per asset. */
export function blobKeyFor(workspace: string, assetId: string, blobId: string): string {
  return assertBlobKey(`${workspace}/${assetId}/${blobId}`);
}

/**
 * The public path of a file under the CDN base. It names the blob, not just
 * the asset, so a replace yields a new URL and caches never serve old bytes.
 */
export function publicPathFor(assetId: string, blobId: string, type: string): string {
  return `${assetId}/${blobId}.${extensionFor(type)}`;
}

export interface PublicPath {
  readonly assetId: string;
  readonly blobId: string;
  readonly extension: string;
}

const PUBLIC_PATH = /^([^/]+)\/([^/.]+)\.([a-z0-9][a-z0-9_-]{0,31})$/;

/** Parses `<asset id>/<blob id>.<ext>` strictly; anything else is `invalid_argument`. */
export function parsePublicPath(path: unknown): PublicPath {
  const match = typeof path === 'string' ? PUBLIC_PATH.exec(path) : null;
  const [, assetId, blobId, extension] = match ?? [];
  if (assetId === undefined || blobId === undefined || extension === undefined || !isId('asset', assetId) || !isId('blob', blobId)) {
    throw invalidArgument('path', 'expected "<asset id>/<blob id>.<extension>"');
  }
  return { assetId, blobId, extension };
}
