// The code samples of the package READMEs (`<workspace>/README.md`): which ones
// packages.test.ts runs in the project that installed the packed tarballs, what
// each must print, and the few it cannot run, with the reason.
// test/packages/readme-samples.test.ts fails when a README's samples and these
// lists part ways.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../../support/cli.js';
import { EMBEDDING_OUTPUT } from '../../support/readme.js';
import { samplesOf, type Sample } from '../../support/samples.js';
import { commandLines, parseCommand } from '../../support/shell-example.js';

/** The README of every workspace: the packages `npm pack` makes. */
export async function packageReadmes(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  return manifest.workspaces.map((workspace) => `${workspace}/README.md`);
}

/** The default addresses the READMEs print, which the test swaps for the ports its servers got. */
export const PRINTED_ADDRESSES = { grpc: 'http://127.0.0.1:50051', rest: 'http://127.0.0.1:8080' } as const;

export function withAddresses(text: string, addresses: { grpc: string; rest: string }): string {
  return text.replaceAll(PRINTED_ADDRESSES.grpc, addresses.grpc).replaceAll(PRINTED_ADDRESSES.rest, addresses.rest);
}

/** A ```js or ```ts sample that runs to its end; its page and first line name it. */
export interface PrintingProgram {
  page: string;
  first: string;
  /** Files the sample reads, put beside it: its name for the file → a fixture of the repository. */
  fixtures?: Record<string, string>;
  /** Calls the `npx switchyard start` server: its addresses swapped in, the README's token as SWITCHYARD_TOKEN. */
  callsServer?: true;
  /** Its whole stdout. */
  prints: RegExp;
  /** A file that must be in the folder it prints. */
  printsFolderHolding?: string;
}

export const PRINTING_PROGRAMS: readonly PrintingProgram[] = [
  {
    page: 'lib/README.md',
    first: "import { createReadStream } from 'node:fs';",
    fixtures: { 'logo.png': 'test/fixtures/image.png' },
    prints: EMBEDDING_OUTPUT,
  },
  {
    page: 'proto/README.md',
    first: "import { RouteService, AssetService } from '@switchyard/proto';",
    // The method names on one line: however many there are, util.inspect would lay a long array out in columns.
    prints: /^switchyard\.v1\.RouteService uploadAsset(?: \w+)+\n$/,
  },
  {
    page: 'runtime/README.md',
    first: "import { createLogger } from '@switchyard/runtime';",
    prints: /^\{"level":30,"time":\d+,"service":"switchyard","token":"\[redacted\]","msg":"hello"\}\n$/,
  },
  {
    page: 'console/README.md',
    first: "import { consoleRoot } from '@switchyard/console';",
    prints: /^\/\S*\/node_modules\/@switchyard\/console\/\S*\/\n$/,
    printsFolderHolding: 'index.html',
  },
  {
    page: 'client/README.md',
    first: "import { createSwitchyardClient } from '@switchyard/client';",
    fixtures: { 'logo.png': 'test/fixtures/image.png' },
    callsServer: true,
    prints: /^image\/png http:\/\/127\.0\.0\.1:\d+\/files\/as_[0-9a-z]{26}\/bl_[0-9a-z]{26}\.png\n$/,
  },
  {
    page: 'client/README.md',
    first: "import { createSwitchyardClient, resumableUpload } from '@switchyard/client';",
    fixtures: { 'holiday.mp4': 'test/fixtures/clip.mp4' },
    callsServer: true,
    // The upload's id, its progress up to the whole file, the asset.
    prints: /^upload up_[0-9a-z]{26}\n(?:\d+ of \d+ bytes\n)*(\d+) of \1 bytes\nas_[0-9a-z]{26} video\/mp4\n$/,
  },
];

/** dispatch/README.md's Hono server, which serves until killed: packages.test.ts starts it, asks it for a route and kills it. */
export const DISPATCH_SERVER = {
  page: 'dispatch/README.md',
  first: "import { serve } from '@hono/node-server';",
  /** What `./registry.js` holds, as the README says: the guide's registries (compiled to JavaScript by the test). */
  registry: 'test/dispatch/samples/registry.ts',
} as const;

/** A command line of a ```sh sample, as printed (its comment left off). */
export interface PrintedCommand {
  page: string;
  command: string;
}

export const START: PrintedCommand = { page: 'cli/README.md', command: 'npx switchyard start' };
export const TOKEN: PrintedCommand = { page: 'cli/README.md', command: 'npx switchyard token --workspace demo' };
export const SERVICE: PrintedCommand = { page: 'service/README.md', command: 'CDN_URL=http://127.0.0.1:8080/files npx switchyard service' };
export const GATEWAY: PrintedCommand = {
  page: 'gateway/README.md',
  command: 'SERVICE_URL=http://127.0.0.1:50051 CDN_URL=http://127.0.0.1:8080/files npx switchyard gateway',
};

/** The commands packages.test.ts runs as printed (only the ports moved to free ones by the environment). */
export const RUN_COMMANDS: readonly PrintedCommand[] = [START, TOKEN, SERVICE, GATEWAY];

const FROM_REGISTRY = 'installs from the registry; packages.test.ts installs the packed tarballs instead';

/** Samples (a command, or a block's first line) no test runs, and why. */
export const NOT_RUN: readonly (PrintedCommand & { why: string })[] = [
  { page: 'cli/README.md', command: 'npm install switchyard', why: FROM_REGISTRY },
  { page: 'gateway/README.md', command: 'npm install switchyard', why: FROM_REGISTRY },
  { page: 'lib/README.md', command: 'npm install @switchyard/core', why: FROM_REGISTRY },
  {
    page: 'lib/README.md',
    command: 'npm install sharp',
    why: 'installs from the registry; the core-only install checks sharp stays optional, and the repository tests read image sizes with its sharp',
  },
  { page: 'proto/README.md', command: 'npm install @switchyard/proto', why: FROM_REGISTRY },
  { page: 'runtime/README.md', command: 'npm install @switchyard/runtime', why: FROM_REGISTRY },
  { page: 'service/README.md', command: 'npm install switchyard', why: FROM_REGISTRY },
];

/** The command as its README prints it now: fails when the README no longer has it. */
export async function printedCommand(printed: PrintedCommand): Promise<{ env: Record<string, string>; argv: string[] }> {
  const commands = (await samplesOf(printed.page)).filter((sample) => sample.lang === 'sh').flatMap((sample) => commandLines(sample.body));
  if (!commands.includes(printed.command)) throw new Error(`${printed.page} no longer prints \`${printed.command}\``);
  return parseCommand(printed.command);
}

/** The ```js or ```ts sample of `page` whose first line is `first`. */
export async function printedProgram(page: string, first: string): Promise<Sample> {
  const sample = (await samplesOf(page)).find(
    (candidate) => candidate.first === first && (candidate.lang === 'js' || candidate.lang === 'ts'),
  );
  if (sample === undefined) throw new Error(`${page} has no js/ts sample starting \`${first}\``);
  return sample;
}
