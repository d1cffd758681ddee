// Link check of the docs (`npm run lint`): README.md, docs/**/*.md,
// bench/README.md and each package's README.md; internal links and anchors
// only, offline (scripts/links/check.ts). Exits 1 listing every broken link.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLinks } from './links/check.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The pages a reader reaches from the README: the front page, docs/, the bench's and every package's README, the bench's history and its page of hand-written parts, and test/README.md. */
export function documentationPages(root: string): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  const readmes = ['.', 'bench', ...workspaces].map((dir) => join(root, dir, 'README.md'));
  const benchPages = ['bench/results/history.md', 'bench/hand-written-parts.md', 'test/README.md'].map((page) => join(root, page));
  return [...[...readmes, ...benchPages].filter((file) => existsSync(file)), ...markdownUnder(join(root, 'docs'))];
}

function markdownUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (
    readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
      // parentPath from Node 20.12; 20.11 (the oldest we support) calls it path.
      .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
      .sort()
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pages = documentationPages(ROOT);
  const broken = checkLinks(ROOT, pages);
  for (const link of broken) console.error(`${link.file}:${link.line}: ${link.target} ${link.reason}`);
  console.log(`links: ${pages.length} pages checked, ${broken.length === 0 ? 'no broken links' : `${broken.length} broken`}`);
  if (broken.length > 0) process.exitCode = 1;
}
