// The curl walk-through of docs/getting-started.md and the README's five-command taste, run line
// for line against a real `npm start`: the shell blocks between <!-- walkthrough:start --> and
// <!-- walkthrough:end -->, and between <!-- taste:start --> and <!-- taste:end -->.
import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Child, cleanEnv, ROOT } from './support/processes.js';

const DEFAULT_BASE = 'http://127.0.0.1:8080';

async function runScript(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const shell = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  shell.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(shell, 'exit')) as [number | null];
  return { code: code, output };
}

/** The ```sh blocks between `<!-- marker:start -->` and `<!-- marker:end -->` of a page, joined. */
async function shellSection(page: string, marker: string): Promise<string> {
  const text = await readFile(join(ROOT, page), 'utf8');
  const section = new RegExp(`<!-- ${marker}:start -->([\\s\\S]*?)<!-- ${marker}:end -->`).exec(text)?.[1];
  if (section === undefined) throw new Error(`${page} has no <!-- ${marker}:start --> … <!-- ${marker}:end --> section`);
  return [...section.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((block) => block[1]).join('\n');
}

/** `npm start` on a free port and a fresh data dir; the script's 8080 is swapped for that port. */
async function runAgainstStart(t: ExecutionContext, source: string): Promise<{ app: Child; code: number | null; output: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-walkthrough-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const env = cleanEnv({ PORT: '0', GRPC_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  const app = new Child(['start'], env);
  t.teardown(() => void app.process.kill('SIGKILL'));
  const [, base] = await app.waitFor(/REST gateway +(http:\/\/\S+)/);
  return { app, ...(await runScript(source.replaceAll(DEFAULT_BASE, base!), env)) };
}

test("every command of the README's five-command taste works as printed", async (t) => {
  const source = await shellSection('README.md', 'taste');
  const { app, code, output } = await runAgainstStart(t, source);
  t.is(code, 0, output);
  t.regex(output, /"method":"GET","path":"\/users\/:id"/, 'the created route');
  t.regex(output, /"params":\{"id":"42"\}/, 'the match');
  t.regex(output, /HTTP\/1\.1 200 OK[\s\S]*^content-type: image\/png\r?$/im, 'the file, no token');
  t.regex(output, /^etag: "[0-9a-f]{64}"\r?$/im, 'its ETag, the sha256');
  t.is(await app.stop(), 0, app.output);
});

test('every command of the curl walk-through in docs/getting-started.md works as printed', async (t) => {
  const source = await shellSection('docs/getting-started.md', 'walkthrough');
  const { app, code, output } = await runAgainstStart(t, source);
  t.is(code, 0, output);

  t.regex(output, /HTTP\/1\.1 201 Created/);
  t.regex(output, /location: \/v1\/routing\/rt_[0-9a-z]{26}/i);
  t.regex(output, /"handler":"createUser"/);
  t.regex(output, /"params":\{"id":"42"\}/);
  t.regex(output, /"type":"image\/png".*"label":"logo".*"width":3,"height":2/);
  t.regex(output, /"label":"logo","name":"image\.png"/, 'the name curl sent');
  t.regex(
    output,
    /^content-disposition: attachment; filename="notes\.txt"; filename\*=UTF-8''notes\.txt\r?$/im,
    'a download under the name',
  );
  t.regex(output, /\{"assets":\[\{[^\]]*"name":"image\.png"[^\]]*\],"nextPageToken":""\}/, 'q=IMAGE');
  t.regex(output, /"name":"Contract 2025\.pdf"/, 'the patched name');
  t.regex(output, /"type":"text\/plain"/);
  t.regex(output, /HTTP\/1\.1 200 OK[\s\S]*cache-control: public, max-age=31536000, immutable/i);
  t.regex(output, /Switchyar/, 'the first ten bytes of notes.txt');
  t.regex(output, /"type":"application\/pdf"/);
  t.regex(output, /^404$/m, 'the replaced-away url');
  t.regex(output, /"middleware":\["auth","audit"\],"handler":"createUser".*"revision":\d+,"owner":""\}/, 'the patched route');
  t.regex(output, /^204$/m, 'the deleted route');
  t.regex(output, /event: reset\n[\s\S]*event: upsert\n[\s\S]*event: synced\nid: \d+\n/, 'the watch: a snapshot');
  t.regex(output, /^200 image\/webp$/m, 'a transformed image');
  t.regex(output, /"code":"invalid_argument","message":"w: must be one of 16, 32/, 'a size not in the list');
  t.regex(output, /"label":"contract".*"visibility":"private"/);
  t.regex(output, /^403\n200\n204\n403$/m, 'private without a signature, signed, revoked, the signed url after the revocation');
  t.regex(
    output,
    /\{"allowedTypes":\["image\/\*"\],"maxUploadBytes":10485760,"defaultVisibility":"public","stripImageMetadata":false,"keepVersions":5,"retentionDays":7\}/,
  );
  t.regex(output, /"code":"invalid_argument","message":"files of type application\/pdf are not allowed in this workspace/);
  t.regex(output, /"code":"unauthenticated"/);
  t.regex(output, /"code":"invalid_argument"/);
  t.regex(output, /"code":"not_found"/);
  t.regex(output, /\{"status":"SERVING"\}/);
  t.regex(output, /"openapi":"3\.1\.0"/);

  t.is(await app.stop(), 0, app.output);
});
