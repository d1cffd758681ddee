/** C0 controls other than tab, line feed, vertical tab, form feed and carriage return: binary, not text. */
const BINARY_CONTROL = /[\x00-\x08\x0e-\x1f]/;

/**
 * The head as UTF-8 text, or `undefined` when it is not text. When the head
 * is only the start of a longer file, a character cut at the end is fine
 * (streaming decode keeps it pending instead of failing).
 */
export function decodeUtf8Text(head: Uint8Array, complete: boolean): string | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete });
  } catch {
    return undefined;
  }
  return BINARY_CONTROL.test(text) ? undefined : text;
}

/**
 * The head as UTF-16 text when it starts with a UTF-16 byte-order mark (which
 * browsers honour, so such a file is text, HTML or SVG to them), else
 * `undefined`. Checked before binary signatures: FF FE also opens an MP3 frame.
 */
export function decodeUtf16Text(head: Uint8Array, complete: boolean): string | undefined {
  const encoding = head[0] === 0xff && head[1] === 0xfe ? 'utf-16le' : head[0] === 0xfe && head[1] === 0xff ? 'utf-16be' : undefined;
  if (encoding === undefined) return undefined;
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true }).decode(head, { stream: !complete });
  } catch {
    return undefined;
  }
  return BINARY_CONTROL.test(text) ? undefined : text;
}
