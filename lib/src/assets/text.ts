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
