// A deployment the docs print as a ```sh block between `<!-- name:start -->`
// and `<!-- name:end -->`, read so a test can run it as printed: its `export`
// lines are the environment of the lines after them, and each `npm run` line,
// with the variables in front of it, is a process.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export interface ExampleProcess {
  /** What follows `npm run` (`service`, `gateway`). */
  readonly command: string;
  /** The line's own variables (`GRPC_PORT=50051`). */
  readonly env: Readonly<Record<string, string>>;
  /** The variables exported above the line. */
  readonly shared: Readonly<Record<string, string>>;
}

export interface ShellExample {
  /** Every `export`ed variable, in order. */
  readonly shared: Readonly<Record<string, string>>;
  /** Each `npm run` line, in order. */
  readonly processes: readonly ExampleProcess[];
}

/** The ```sh block between the `marker` markers of `page` (relative to the repository root). */
export async function readShellExample(page: string, marker: string): Promise<ShellExample> {
  const doc = await readFile(join(ROOT, page), 'utf8');
  const start = `<!-- ${marker}:start -->`;
  const end = `<!-- ${marker}:end -->`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end, from);
  const block = from < 0 || to < 0 ? undefined : /^\s*```sh\n([\s\S]*?)```\s*$/.exec(doc.slice(from + start.length, to))?.[1];
  if (block === undefined) throw new Error(`${page} has no \`\`\`sh block between ${start} and ${end}`);
  const shared: Record<string, string> = {};
  const processes: ExampleProcess[] = [];
  // A `\` at a line's end continues the command on the next, as the shell reads it.
  for (const line of block.replace(/\\\n/g, ' ').split('\n').map((text) => text.trim()).filter(Boolean)) {
    const words = line.split(/\s+/);
    if (words[0] === 'export') {
      Object.assign(shared, assignments(words.slice(1), line));
      continue;
    }
    const run = words.indexOf('npm');
    if (run < 0 || words[run + 1] !== 'run' || words.length !== run + 3) throw new Error(`not an export or an npm run line: ${line}`);
    processes.push({ command: words[run + 2]!, env: assignments(words.slice(0, run), line), shared: { ...shared } });
  }
  return { shared, processes };
}

function assignments(words: readonly string[], line: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const word of words) {
    const equals = word.indexOf('=');
    if (equals <= 0) throw new Error(`not NAME=value: ${word} (in ${line})`);
    env[word.slice(0, equals)] = word.slice(equals + 1);
  }
  return env;
}

/** The storage values an example of the docs names, swapped for this run's database and s3rver bucket (its fixed keys). */
export function storageSwaps(database: { readonly url: string }, s3: { readonly bucket: string; readonly endpoint: string }): Record<string, string> {
  return { DATABASE_URL: database.url, S3_BUCKET: s3.bucket, S3_ENDPOINT: s3.endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
}
