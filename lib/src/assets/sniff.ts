import { fileTypeFromBuffer } from 'file-type';
import { csvType } from './csv.js';
import { isJson } from './json.js';
import { markupType } from './markup.js';
import { decodeUtf16Text, decodeUtf8Text } from './text.js';

/**
 * How many leading bytes of a file sniffing looks at. Large enough for
 * file-type to walk the first zip entries of Office documents (DOCX, XLSX),
 * for JPEG headers behind big EXIF blocks, and for sharp to read image sizes.
 */
export const SNIFF_HEAD_BYTES = 256 * 1024;

export const OCTET_STREAM = 'application/octet-stream';

/**
 * The media type of a file from its content alone: `head` is its first bytes
 * (at most `SNIFF_HEAD_BYTES` are looked at), `totalSize` its full length.
 * Binary formats come from file-type; what it cannot see is checked here, in
 * this order: SVG, HTML, XML, JSON, CSV/TSV, UTF-8 text. UTF-16 text with a
 * byte-order mark goes through the same text checks before anything else. Anything else, and
 * an empty file (no content proves any type), is `application/octet-stream`.
 */
export async function sniffMediaType(head: Uint8Array, totalSize: number): Promise<string> {
  const sample = head.subarray(0, Math.min(SNIFF_HEAD_BYTES, totalSize));
  if (sample.length === 0) return OCTET_STREAM;
  const utf16 = decodeUtf16Text(sample, sample.length >= totalSize);
  if (utf16 !== undefined) return textType(utf16, sample.length >= totalSize);
  const detected = await detectBinary(sample);
  // file-type reports any `<?xml` document as XML; SVG and XHTML are told apart below.
  if (detected !== undefined && detected !== 'application/xml') return detected;
  const text = decodeUtf8Text(sample, sample.length >= totalSize);
  if (text === undefined) return detected ?? OCTET_STREAM;
  return textType(text, sample.length >= totalSize);
}

function textType(text: string, complete: boolean): string {
  return markupType(text) ?? (isJson(text, complete) ? 'application/json' : undefined) ?? csvType(text, complete) ?? 'text/plain';
}

async function detectBinary(sample: Uint8Array): Promise<string | undefined> {
  try {
    return (await fileTypeFromBuffer(sample))?.mime;
  } catch {
    // A parser bug on hostile input must not fail the upload; the text checks still run.
    return undefined;
  }
}
