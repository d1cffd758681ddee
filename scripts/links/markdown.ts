// The parts of Markdown a link checker needs, without a Markdown library (none
// is installed, and the subset is small): the links a page makes, outside code
// and comments, and the anchors it offers, named as GitHub names them.

export interface MarkdownLink {
  readonly target: string;
  /** 1-based, for the report. */
  readonly line: number;
}

/** The page with fenced code blocks and HTML comments blanked out, line breaks kept (so line numbers hold). */
export function withoutBlocks(text: string): string {
  const lines = text.split('\n');
  let fence: { char: string; length: number } | undefined;
  const kept = lines.map((line) => {
    // Fences may be indented inside list items; CommonMark allows three spaces at the top level.
    const marker = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence === undefined) {
      if (marker && !(marker[1]![0] === '`' && marker[2]!.includes('`'))) {
        fence = { char: marker[1]![0]!, length: marker[1]!.length };
        return '';
      }
      return line;
    }
    if (marker && marker[1]![0] === fence.char && marker[1]!.length >= fence.length && marker[2]!.trim() === '') fence = undefined;
    return '';
  });
  return blank(kept.join('\n'), /<!--[\s\S]*?-->/g);
}

/** The page without code of any kind: fenced blocks, comments and inline code spans. */
export function withoutCode(text: string): string {
  return withoutCodeSpans(withoutBlocks(text));
}

/** Inline code spans blanked: a run of n backticks up to the next run of exactly n (an unmatched run is literal). */
export function withoutCodeSpans(text: string): string {
  let result = '';
  let index = 0;
  while (index < text.length) {
    const open = /`+/g;
    open.lastIndex = index;
    const start = open.exec(text);
    if (start === null) break;
    const run = start[0].length;
    const close = new RegExp(`(?<!\`)\`{${run}}(?!\`)`, 'g');
    close.lastIndex = start.index + run;
    const end = close.exec(text);
    // A span ends with its paragraph: an opener whose closer lies past a blank line is a literal backtick.
    if (end === null || /\n[ \t]*\n/.test(text.slice(start.index, end.index))) {
      result += text.slice(index, start.index + run);
      index = start.index + run;
      continue;
    }
    result += text.slice(index, start.index) + blank(text.slice(start.index, end.index + run), /[^\n]+/g);
    index = end.index + run;
  }
  return result + text.slice(index);
}

/** Every link target: inline links and images, reference definitions, and HTML href/src attributes. */
export function linksOf(text: string): MarkdownLink[] {
  const plain = withoutCode(text);
  const found: { target: string; at: number }[] = [];
  for (let at = plain.indexOf(']('); at !== -1; at = plain.indexOf('](', at + 2)) {
    const target = destination(plain, at + 2);
    if (target !== undefined) found.push({ target, at });
  }
  for (const match of plain.matchAll(/^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/gm))
    found.push({ target: match[1]!.replace(/^<|>$/g, ''), at: match.index });
  for (const match of plain.matchAll(/<(?:a|img|source|link)\b[^>]*?\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi))
    found.push({ target: match[1] ?? match[2]!, at: match.index });
  return found.sort((a, b) => a.at - b.at).map(({ target, at }) => ({ target, line: lineAt(plain, at) }));
}

/** The anchors a page offers: its headings' slugs (duplicates numbered) and explicit `id`/`name` attributes. */
export function anchorsOf(text: string): Set<string> {
  const plain = withoutBlocks(text);
  const anchors = new Set<string>();
  const slugger = new Slugger();
  const lines = plain.split('\n');
  for (const [index, line] of lines.entries()) {
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    const previous = lines[index - 1];
    if (atx) anchors.add(slugger.slug(headingText(atx[1] ?? '')));
    else if (/^ {0,3}(=+|-+)[ \t]*$/.test(line) && previous !== undefined && isParagraphLine(previous))
      anchors.add(slugger.slug(headingText(previous)));
  }
  for (const match of plain.matchAll(/<[a-z][a-z0-9]*\b[^>]*?\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi))
    anchors.add(match[1] ?? match[2]!);
  return anchors;
}

/** GitHub's heading ids (github-slugger): lowercase, punctuation dropped, spaces to `-`, repeats get `-1`, `-2`. */
export class Slugger {
  readonly #seen = new Map<string, number>();

  slug(text: string): string {
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    let slug = base;
    while (this.#seen.has(slug)) {
      const count = this.#seen.get(base)! + 1;
      this.#seen.set(base, count);
      slug = `${base}-${count}`;
    }
    this.#seen.set(slug, 0);
    return slug;
  }
}

/** A heading's text as GitHub renders it: code without backticks, links as their text, no tags or emphasis. */
export function headingText(source: string): string {
  return source
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`+/g, '')
    .replace(/(^|[^\p{L}\p{N}])_{1,2}(?=\S)(.+?)(?<=\S)_{1,2}(?=[^\p{L}\p{N}]|$)/gu, '$1$2')
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .trim();
}

/** A link destination starting at `from` (just after `](`): `<…>`, or up to whitespace or the unbalanced `)`. */
function destination(text: string, from: number): string | undefined {
  let index = from;
  while (text[index] === ' ' || text[index] === '\t') index++;
  if (text[index] === '<') {
    const end = text.indexOf('>', index);
    return end === -1 ? undefined : text.slice(index + 1, end);
  }
  let depth = 0;
  const start = index;
  for (; index < text.length; index++) {
    const char = text[index]!;
    if (char === '\\') index++;
    else if (char === '(') depth++;
    else if (char === ')' && depth-- === 0) break;
    else if (/\s/.test(char)) break;
  }
  return text.slice(start, index);
}

/** A line that can be a setext heading's text: not blank, not a list item, quote, table, tag or heading. */
function isParagraphLine(line: string): boolean {
  return line.trim() !== '' && !/^\s*([-*+>|<#]|\d+[.)]\s)/.test(line);
}

function blank(text: string, pattern: RegExp): string {
  return text.replace(pattern, (match) => match.replace(/[^\n]/g, ' '));
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line++;
  return line;
}
