// What only a process shows: the compiled `switchyard` (node cli/dist/bin.js, as
// npm start runs it) exits 0, 1 for a failure and 2 for a bad command line, with
// the failure on stderr alone. Everything else about the commands is tested in
// process, through main (the other files here); the start banner and shutdown
// on SIGTERM in test/rest/processes.test.ts and test/grpc/processes.test.ts.
import test from 'ava';
import { readFile } from 'node:fs/promises';
import { spawnCli } from '../support/cli.js';

const CLEAN = { DATABASE_URL: '', BLOB_STORE: '', DATA_DIR: '' };

test('exit 0: --version prints the version on stdout', async (t) => {
  const manifest = JSON.parse(await readFile(new URL('../../cli/package.json', import.meta.url), 'utf8')) as { version: string };
  const run = await spawnCli(['--version'], CLEAN);
  t.is(run.code, 0, run.stderr);
  t.is(run.stdout, `${manifest.version}\n`);
  t.is(run.stderr, '');
});

test('exit 1: a failing command prints one line on stderr, nothing on stdout', async (t) => {
  const run = await spawnCli(['migrate'], { ...CLEAN, DATABASE_URL: 'postgres://x@y/z' });
  t.is(run.code, 1);
  t.is(run.stdout, '');
  t.regex(run.stderr, /DATABASE_URL: .*not a mysql:\/\/ URL/);
  t.false(run.stderr.includes('    at '), 'no stack trace');
});

test('exit 2: an unknown option is a usage error that shows the usage on stderr', async (t) => {
  const run = await spawnCli(['gc', '--force'], CLEAN);
  t.is(run.code, 2);
  t.is(run.stdout, '');
  t.regex(run.stderr, /Unknown option '--force'[\s\S]*usage: switchyard gc/);
});
