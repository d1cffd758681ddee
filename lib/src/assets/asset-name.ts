import { invalidArgument } from '../errors.js';
import { extensionFor } from './extension.js';

/** Longest name in characters (code points): what common file systems allow for one file name. */
export const MAX_NAME_LENGTH = 255;
/** When a long name is cut, an extension of up to this many characters after its last dot is kept. */
const KEPT_EXTENSION_LENGTH = 16;

/** Control characters (C0, DEL, C1) and unpaired surrogates: no header, terminal or UTF-8 column takes them whole. */
const UNWANTED = /[\p{Cc}\p{Cs}]/gu;

/**
 * The name of an uploaded file as its client gave it (multipart filename,
 * gRPC `filename`, tus metadata): control characters removed, then cut to
 * 255 characters, keeping a short extension (`<stem…>.pdf`). Never refused
 * for its length or contents: it comes from a file system the caller cannot
 * change. Absent is `""`.
 */
export function cleanName(value: unknown, field = 'filename'): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw invalidArgument(field, 'must be a string');
  return cut(value.replace(UNWANTED, ''));
}

/**
 * A name a caller sets on purpose (PATCH, UpdateAsset): cleaned as an
 * upload's, but one longer than 255 characters is refused rather than
 * silently shortened, since the caller can send a shorter one. `""` clears it.
 */
export function validateName(value: unknown): string {
  if (typeof value !== 'string') throw invalidArgument('name', 'must be a string');
  const cleaned = value.replace(UNWANTED, '');
  if (tooLong(cleaned)) throw invalidArgument('name', `must be at most ${MAX_NAME_LENGTH} characters`);
  return cleaned;
}

/**
 * The form a name is searched in: NFC (macOS hands out decomposed names),
 * lower case with the final sigma as sigma (so a prefix never depends on where
 * a word ends), at most 255 characters. Stores keep it beside the name, for an
 * index; `q` is compared in the same form.
 */
export function nameKey(name: string): string {
  const folded = name.normalize('NFC').toLowerCase().replaceAll('ς', 'σ');
  return folded.length <= MAX_NAME_LENGTH ? folded : [...folded].slice(0, MAX_NAME_LENGTH).join('');
}

/**
 * A listing's `q`: a prefix of the names to list, cleaned as a name, in the
 * form of `nameKey`; `undefined` for none. Longer than a name can be is
 * `invalid_argument` (field `q`).
 */
export function namePrefixOf(q: unknown): string | undefined {
  if (q === undefined) return undefined;
  if (typeof q !== 'string') throw invalidArgument('q', 'must be a string');
  const cleaned = q.replace(UNWANTED, '');
  if (cleaned === '') return undefined;
  if (tooLong(cleaned)) throw invalidArgument('q', `must be at most ${MAX_NAME_LENGTH} characters`);
  // Folded but not cut: a prefix longer than any key matches nothing, as it should.
  return cleaned.normalize('NFC').toLowerCase().replaceAll('ς', 'σ');
}

/**
 * The name to save a file as: the asset's name (a derived image's with the
 * extension of its own format), or, when the asset has none, its id and the
 * extension of the type.
 */
export function downloadName(id: string, name: string, sourceType: string, type: string): string {
  if (name === '') return `${id}.${extensionFor(type)}`;
  if (type === sourceType) return name;
  const dot = name.lastIndexOf('.');
  return `${dot > 0 ? name.slice(0, dot) : name}.${extensionFor(type)}`;
}

function cut(name: string): string {
  // Each code point is one or two UTF-16 units: a short string cannot be too long.
  if (name.length <= MAX_NAME_LENGTH) return name;
  const chars = [...name];
  if (chars.length <= MAX_NAME_LENGTH) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? [...name.slice(dot)] : [];
  if (extension.length < 2 || extension.length > KEPT_EXTENSION_LENGTH + 1) return chars.slice(0, MAX_NAME_LENGTH).join('');
  return chars.slice(0, MAX_NAME_LENGTH - extension.length).join('') + extension.join('');
}

function tooLong(text: string): boolean {
  return text.length > MAX_NAME_LENGTH && [...text].length > MAX_NAME_LENGTH;
}
