import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './cli.js';

/** One fenced block of a Markdown page, with where it stands. */
export interface Sample {
  page: string;
  /** The fence's language (`ts`, `js`, `sh`, or '' for none). */
  lang: string;
  /** The block's first line, which names it in lists of samples. */
  first: string;
  /** The block's text, up to the closing fence. */
  body: string;
  /** The `<!-- name:start -->` sections the block is inside. */
  markers: string[];
  /** The nearest heading above the block, without its #s. */
  heading: string;
}

/** The fenced blocks of a page of the repository (`page` relative to its root), pictures of boxes left out. */
export async function samplesOf(page: string): Promise<Sample[]> {
  const text = await readFile(join(ROOT, page), 'utf8');
  const samples: Sample[] = [];
  for (const block of text.matchAll(/^ *```(\w*)\n([\s\S]*?)^ *```$/gm)) {
    const lang = block[1]!;
    const body = block[2]!;
    if (lang === '' && body.includes('│')) continue; // a picture, not a sample
    const before = text.slice(0, block.index);
    const markers = [...before.matchAll(/<!-- ([\w-]+):start -->/g)]
      .map((m) => m[1]!)
      .filter((name) => before.lastIndexOf(`<!-- ${name}:start -->`) > before.lastIndexOf(`<!-- ${name}:end -->`));
    const heading = [...before.matchAll(/^#{1,6} (.*)$/gm)].at(-1)?.[1] ?? '';
    samples.push({ page, lang, first: body.split('\n')[0]!, body, markers, heading });
  }
  return samples;
}
