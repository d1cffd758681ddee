import { MAX_NAME_LENGTH } from '@switchyard/core';

/** Above every key: longer than any (keys have at most 255 characters) and made of the last code point. */
const ABOVE_EVERY_KEY = '\u{10FFFF}'.repeat(MAX_NAME_LENGTH + 1);

/**
 * The conditions that find the keys starting with `prefix` (itself a key):
 * `from <= key < to`, a range on the (workspace, name_lower, id) index in both
 * dialects, and `octet_length(key) >= bytes`. No LIKE: SQLite uses an index
 * for LIKE only on a NOCASE column (which folds ASCII alone), and MariaDB's
 * range for a LIKE prefix ends below 4-byte characters (`'📷📷📷' LIKE '📷📷%'`
 * finds nothing through the index). So `%` and `_` are plain characters here
 * by construction. The length is for MySQL's utf8mb4_bin, which pads: there
 * `'ab' >= 'ab '`, and only a key shorter than the prefix can pass that way
 * (keys hold no character below the space: names have no control characters).
 */
export function prefixRange(prefix: string): { readonly from: string; readonly to: string; readonly bytes: number } {
  return { from: prefix, to: successor(prefix), bytes: Buffer.byteLength(prefix) };
}

/** The least string above every string that starts with `prefix`: its last code point raised by one. */
function successor(prefix: string): string {
  const chars = [...prefix];
  while (chars.length > 0) {
    const last = chars.pop()!.codePointAt(0)!;
    if (last === 0x10ffff) continue;
    // No key holds a surrogate code point: past U+D7FF comes U+E000.
    chars.push(String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1));
    return chars.join('');
  }
  return ABOVE_EVERY_KEY;
}
