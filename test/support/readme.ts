import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './cli.js';

/** The ```ts block between the embed markers of README.md (or of another page that prints the example: docs/embedding.md, lib/README.md). */
export async function readmeEmbeddingExample(page = 'README.md'): Promise<string | undefined> {
  const readme = await readFile(join(ROOT, page), 'utf8');
  return /<!-- embed:start -->\s*```ts\n([\s\S]*?)```\s*<!-- embed:end -->/.exec(readme)?.[1];
}

/** What the example prints, as the README says (it uploads a PNG it finds at `logo.png`). */
export const EMBEDDING_OUTPUT =
  /^getUser \{ id: '42' \} image\/png https:\/\/cdn\.example\.com\/files\/as_[0-9a-z]{26}\/bl_[0-9a-z]{26}\.png\n$/;
