// Checks the internal links of Markdown pages: a relative file or folder must
// exist, and an anchor (`#part`, `page.md#part`) must name a heading or an
// explicit id of the page it points into. Nothing goes over the network:
// links with a scheme (http:, https:, mailto:, …) are not followed.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { anchorsOf, linksOf } from './markdown.js';

export interface BrokenLink {
  /** Relative to the root. */
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly reason: string;
}

/** The broken links of `files` (absolute paths); a leading `/` in a link means `root`, as on GitHub. */
export function checkLinks(root: string, files: readonly string[]): BrokenLink[] {
  const anchors = new Map<string, Set<string>>();
  const anchorsIn = (file: string): Set<string> => {
    if (!anchors.has(file)) anchors.set(file, anchorsOf(readFileSync(file, 'utf8')));
    return anchors.get(file)!;
  };
  const broken: BrokenLink[] = [];
  for (const file of files) {
    for (const link of linksOf(readFileSync(file, 'utf8'))) {
      const reason = problemOf(root, file, link.target, anchorsIn);
      if (reason !== undefined) broken.push({ file: relative(root, file), line: link.line, target: link.target, reason });
    }
  }
  return broken;
}

function problemOf(root: string, file: string, target: string, anchorsIn: (file: string) => Set<string>): string | undefined {
  if (target.trim() === '') return 'is empty';
  // A scheme (https:, mailto:, data:) or a protocol-relative //host: not ours to check.
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  const hashAt = target.indexOf('#');
  const pathPart = (hashAt === -1 ? target : target.slice(0, hashAt)).replace(/\?.*$/, '');
  const fragment = hashAt === -1 ? undefined : target.slice(hashAt + 1);
  let path: string;
  try {
    path = decodeURIComponent(pathPart);
  } catch {
    return 'is not a valid URL path';
  }
  const resolved = path === '' ? file : path.startsWith('/') ? join(root, path) : resolve(dirname(file), path);
  if (!existsSync(resolved)) return `points to ${relative(root, resolved) || '.'}, which does not exist`;
  // Anchors of other kinds of files (a source file's #L12) are GitHub's, not headings.
  if (fragment === undefined || statSync(resolved).isDirectory() || extname(resolved).toLowerCase() !== '.md') return undefined;
  let anchor: string;
  try {
    anchor = decodeURIComponent(fragment);
  } catch {
    return 'has an anchor that is not valid percent-encoding';
  }
  if (anchor === '' || anchorsIn(resolved).has(anchor)) return undefined;
  return `names #${anchor}, which no heading or id of ${relative(root, resolved)} has`;
}
