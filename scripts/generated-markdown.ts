// What every generated section of the docs shares: the splice that replaces
// the text between a page's two markers and keeps the prose around them, and
// table rows whose cells cannot break the table.

export interface Markers {
  readonly start: string;
  readonly end: string;
}

/** `page` with the text between its markers replaced by `generated`; the prose around them is kept. */
export function spliceBetween(page: string, generated: string, { start: startMarker, end: endMarker }: Markers): string {
  const start = page.indexOf(startMarker);
  const end = page.indexOf(endMarker);
  if (start === -1 || end === -1 || end < start || page.indexOf(startMarker, start + 1) !== -1 || page.indexOf(endMarker, end + 1) !== -1) {
    throw new Error(`the page needs exactly one ${startMarker} followed by one ${endMarker}`);
  }
  return `${page.slice(0, start + startMarker.length)}\n${generated}${page.slice(end)}`;
}

/** One table row; a `|` inside a cell, even in a code span, must be escaped in GitHub's tables. */
export function tableRow(...cells: string[]): string {
  for (const cell of cells) if (/[\r\n]/.test(cell)) throw new Error(`a table cell cannot hold a line break: ${JSON.stringify(cell)}`);
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}

/** The first line where `page` differs from `expected`, for a test's message (a diff of two whole pages buries it). */
export function firstDifference(page: string, expected: string): { line: number; have: string | undefined; want: string | undefined } {
  const [have, want] = [page.split('\n'), expected.split('\n')];
  const index = want.findIndex((text, at) => text !== have[at]);
  const at = index === -1 ? want.length : index;
  return { line: at + 1, have: have[at], want: want[at] };
}
