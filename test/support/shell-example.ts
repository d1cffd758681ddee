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
  for (const line of commandLines(block)) {
    if (line.startsWith('export ')) {
      const { env, argv } = parseCommand(line.slice('export '.length));
      if (argv.length > 0) throw new Error(`not NAME=value: ${argv[0]} (in ${line})`);
      Object.assign(shared, env);
      continue;
    }
    const { env, argv } = parseCommand(line);
    if (argv.length !== 3 || argv[0] !== 'npm' || argv[1] !== 'run') throw new Error(`not an export or an npm run line: ${line}`);
    processes.push({ command: argv[2]!, env, shared: { ...shared } });
  }
  return { shared, processes };
}

/** The command lines of shell text: comments and blank lines left off, a line ending in `\` joined to the next, as the shell reads it. */
export function commandLines(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/(^|\s+)#.*$/, '').trim())
    .filter((line) => line !== '');
}

/** A command line split into the variables set in front of it and the program with its arguments (no quoting: the docs use none). */
export function parseCommand(line: string): { env: Record<string, string>; argv: string[] } {
  const words = line.split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  return { env, argv: words };
}

/** `text` with each `127.0.0.1:<port>` whose port `ports` maps moved to the mapped port (a doc's addresses on a run's free ports). */
export function withLoopbackPorts(text: string, ports: ReadonlyMap<string, string>): string {
  return text.replace(/127\.0\.0\.1:(\d+)/g, (whole, port: string) => (ports.has(port) ? `127.0.0.1:${ports.get(port)!}` : whole));
}

/** The storage values an example of the docs names, swapped for this run's database and s3rver bucket (its fixed keys). */
export function storageSwaps(
  database: { readonly url: string },
  s3: { readonly bucket: string; readonly endpoint: string },
): Record<string, string> {
  return {
    DATABASE_URL: database.url,
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: s3.endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
}

/** Where a command of the examples listens when neither its line nor the exports say (docs/configuration.md's defaults). */
export const DEFAULT_PORTS = {
  service: { GRPC_PORT: '50051', METRICS_PORT: '9464' },
  gateway: { PORT: '8080', METRICS_PORT: '9464' },
} as const;

/**
 * The examples' addresses are all 127.0.0.1: as printed, their processes run
 * on one host, so no two may listen on one port, /metrics included (each
 * process serves it, on 9464 unless told otherwise). Checked on the doc's own
 * values, since a test runs them on free ports.
 */
export function assertOneHostPorts(example: ShellExample, page: string): void {
  const owners = new Map<string, string>();
  for (const [index, line] of example.processes.entries()) {
    const defaults: Readonly<Record<string, string>> | undefined = DEFAULT_PORTS[line.command as keyof typeof DEFAULT_PORTS];
    if (!defaults) continue;
    for (const [name, fallback] of Object.entries(defaults)) {
      const port = line.env[name] ?? line.shared[name] ?? fallback;
      const who = `line ${index + 1} (npm run ${line.command}) ${name}`;
      const owner = owners.get(port);
      if (owner) throw new Error(`${page}'s example, run as printed on one host, listens twice on port ${port}: ${owner} and ${who}`);
      owners.set(port, who);
    }
  }
}
