import { UPLOAD_CHECKSUM_ALGORITHMS, type UploadChecksumAlgorithm } from '@switchyard/core';
import { ApiError } from '../http/api-error.js';

// The request headers of tus 1.0 (https://tus.io/protocols/resumable-upload),
// parsed strictly: a malformed one is a 400 naming the header, never a guess.

export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = [
  'creation',
  'creation-with-upload',
  'creation-defer-length',
  'termination',
  'expiration',
  'checksum',
  'concatenation',
] as const;
/** The content type of every body that carries upload bytes. */
export const OFFSET_OCTET_STREAM = 'application/offset+octet-stream';

/** What `Upload-Metadata` may say; other keys are accepted and ignored (clients add their own, e.g. `filetype`). */
export interface UploadMetadata {
  readonly filename?: string | undefined;
  readonly label?: string | undefined;
  readonly visibility?: string | undefined;
  readonly replace?: string | undefined;
}

const METADATA_KEYS = ['filename', 'label', 'visibility', 'replace'] as const;
const MAX_METADATA_BYTES = 8 * 1024;
const KEY = /^[\x21-\x2b\x2d-\x7e]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DECIMAL = /^\d{1,16}$/;

/** A refused tus header: 400 naming it. */
export function badHeader(header: string, reason: string): ApiError {
  return new ApiError('invalid_argument', `${header}: ${reason}`, [{ field: header, reason }]);
}

/** A header's one value; a repeated header is refused (Node joins most repeats with ", "). */
export function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  if (Array.isArray(value)) throw badHeader(name, 'sent more than once');
  return value;
}

/** `Upload-Offset`, `Upload-Length`: a non-negative decimal integer. */
export function parseSize(value: string | undefined, header: string): number | undefined {
  if (value === undefined) return undefined;
  if (!DECIMAL.test(value) || !Number.isSafeInteger(Number(value))) throw badHeader(header, 'must be a non-negative whole number of bytes');
  return Number(value);
}

/** `Upload-Metadata`: comma-separated `key base64value` pairs (the value may be absent). */
export function parseMetadata(value: string | undefined): UploadMetadata {
  if (value === undefined || value.trim() === '') return {};
  if (Buffer.byteLength(value) > MAX_METADATA_BYTES) throw badHeader('Upload-Metadata', `longer than ${MAX_METADATA_BYTES} bytes`);
  const found = new Map<string, string>();
  for (const pair of value.split(',')) {
    const [key = '', encoded = '', ...rest] = pair.trim().split(' ');
    if (!KEY.test(key) || rest.length > 0) throw badHeader('Upload-Metadata', 'expected comma-separated "key base64-value" pairs');
    if (found.has(key)) throw badHeader('Upload-Metadata', `key "${key}" given twice`);
    if (!BASE64.test(encoded) || encoded.length % 4 === 1) throw badHeader('Upload-Metadata', `the value of "${key}" is not base64`);
    const decoded = Buffer.from(encoded, 'base64');
    const text = new TextDecoder('utf-8', { fatal: false }).decode(decoded);
    if (Buffer.byteLength(text) !== decoded.length || text.includes('\uFFFD'))
      throw badHeader('Upload-Metadata', `the value of "${key}" is not UTF-8 text`);
    found.set(key, text);
  }
  const metadata: Record<string, string> = {};
  for (const key of METADATA_KEYS) {
    const text = found.get(key);
    if (text !== undefined) metadata[key] = text;
  }
  // Uppy and others name the file `name`.
  if (metadata['filename'] === undefined && found.has('name')) metadata['filename'] = found.get('name')!;
  return metadata;
}

/** `Upload-Metadata` for a HEAD answer: the keys we keep, as given. */
export function formatMetadata(metadata: UploadMetadata): string {
  return METADATA_KEYS.filter((key) => metadata[key])
    .map((key) => `${key} ${Buffer.from(metadata[key]!).toString('base64')}`)
    .join(',');
}

export type UploadConcat = { readonly kind: 'partial' } | { readonly kind: 'final'; readonly ids: readonly string[] };

/** `Upload-Concat`: `partial`, or `final;` and the urls (absolute or paths) of the partial uploads. */
export function parseConcat(value: string | undefined, uploadsPath: string): UploadConcat | undefined {
  if (value === undefined) return undefined;
  if (value === 'partial') return { kind: 'partial' };
  if (!value.startsWith('final;')) throw badHeader('Upload-Concat', 'must be "partial" or "final;" followed by upload urls');
  const urls = value.slice('final;'.length).trim().split(/ +/).filter(Boolean);
  if (urls.length === 0) throw badHeader('Upload-Concat', 'a final upload names at least one partial upload');
  return { kind: 'final', ids: urls.map((url) => uploadIdOf(url, uploadsPath)) };
}

function uploadIdOf(url: string, uploadsPath: string): string {
  let path: string;
  try {
    path = new URL(url, 'http://gateway.invalid').pathname;
  } catch {
    throw badHeader('Upload-Concat', `"${url.slice(0, 200)}" is not an upload url`);
  }
  const prefix = `${uploadsPath}/`;
  const id = path.startsWith(prefix) ? path.slice(prefix.length) : '';
  if (id === '' || id.includes('/')) throw badHeader('Upload-Concat', `"${url.slice(0, 200)}" is not an upload url of this server`);
  return id;
}

export interface ParsedChecksum {
  readonly algorithm: UploadChecksumAlgorithm;
  readonly digest: Uint8Array;
}

/** `Upload-Checksum: <algorithm> <base64 digest>`. */
export function parseChecksum(value: string | undefined): ParsedChecksum | undefined {
  if (value === undefined) return undefined;
  const [algorithm = '', encoded = '', ...rest] = value.trim().split(' ');
  if (!(UPLOAD_CHECKSUM_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw badHeader('Upload-Checksum', `the algorithm must be one of ${UPLOAD_CHECKSUM_ALGORITHMS.join(', ')}`);
  }
  const digest = Buffer.from(encoded, 'base64');
  const expected = algorithm === 'sha1' ? 20 : 32;
  if (rest.length > 0 || !BASE64.test(encoded) || digest.length !== expected)
    throw badHeader('Upload-Checksum', `expected "${algorithm} <base64 of ${expected} bytes>"`);
  return { algorithm: algorithm as UploadChecksumAlgorithm, digest };
}
