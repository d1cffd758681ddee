/** Delimiters tried in order, and the type a consistent one means. */
const DELIMITERS: ReadonlyArray<readonly [string, string]> = [
  [',', 'text/csv'],
  [';', 'text/csv'],
  ['\t', 'text/tab-separated-values'],
];

/**
 * CSV rule: at least two records, and one delimiter that occurs the same
 * number of times (at least once) in every record, counted outside
 * double-quoted fields (RFC 4180 quoting, `""` escapes, quoted line breaks).
 * Trailing blank lines are ignored; when the head is only the start of the
 * file, its last (possibly cut) record is ignored too.
 */
export function csvType(text: string, complete: boolean): string | undefined {
  for (const [delimiter, type] of DELIMITERS) {
    const counts = delimiterCounts(text, delimiter, complete);
    if (counts && counts.length >= 2 && counts[0]! > 0 && counts.every((count) => count === counts[0])) return type;
  }
  return undefined;
}

/** Delimiters per record, or `undefined` when the quoting is broken or no record is complete. */
function delimiterCounts(text: string, delimiter: string, complete: boolean): number[] | undefined {
  const counts: number[] = [];
  let count = 0;
  let recordStart = true;
  let fieldStart = true;
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inQuotes) {
      if (char !== '"') continue;
      if (text[i + 1] === '"') i++;
      else inQuotes = false;
    } else if (char === '"' && fieldStart) {
      inQuotes = true;
      fieldStart = recordStart = false;
    } else if (char === delimiter) {
      count++;
      fieldStart = true;
      recordStart = false;
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      // A blank line is a record without delimiters: it breaks consistency unless trailing.
      counts.push(recordStart ? -1 : count);
      count = 0;
      fieldStart = recordStart = true;
    } else {
      fieldStart = recordStart = false;
    }
  }
  if (complete && inQuotes) return undefined;
  if (complete && !recordStart) counts.push(count);
  while (counts.length > 0 && counts[counts.length - 1] === -1) counts.pop();
  return counts;
}
