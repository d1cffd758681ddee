// `switchyard keys create|list|revoke` through the CLI's main, in process, on a DATA_DIR's database; the keys it makes
// are accepted by a server started on the same environment.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliRun } from '../support/cli.js';
import { startStack } from '../rest/support/stack.js';

async function dataDir(t: import('ava').ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-keys-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function keys(dir: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(['keys', ...args], { DATA_DIR: dir, DATABASE_URL: '', BLOB_STORE: '', KEY_MAX_TTL: '', ...env });
}

test('create prints the secret alone; list shows the key; a server on the same DATA_DIR accepts it, and refuses it once revoked', async (t) => {
  const dir = await dataDir(t);
  t.is((await runCli(['migrate'], { DATA_DIR: dir, DATABASE_URL: '', BLOB_STORE: '' })).code, 0);
  const created = await keys(dir, ['create', '--workspace', 'acme', '--name', 'deploy', '--scope', 'routes:read', '--ttl', '30d']);
  t.is(created.code, 0, created.stderr);
  t.regex(created.stdout, /^sy_[0-9A-Za-z]{36}\n$/);
  const secret = created.stdout.trim();
  const id = /created (key_[0-9a-z]{26}) for acme \(routes:read\), expires /.exec(created.stderr)?.[1];
  t.truthy(id, created.stderr);
  const spare = (await keys(dir, ['create', '--workspace', 'acme', '--name', 'spare', '--ttl', '1h'])).stdout.trim();

  const listed = await keys(dir, ['list', '--workspace', 'acme']);
  t.is(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trim().split('\n');
  t.is(lines.length, 2);
  t.regex(lines[0]!, new RegExp(`^${id}  active  "deploy"  routes:read  expires \\S+  never used$`));
  t.false(listed.stdout.includes(secret));
  t.is((await keys(dir, ['list', '--workspace', 'other'])).stdout, '');

  t.is((await keys(dir, ['revoke', '--workspace', 'acme', '--id', id!])).stdout, `revoked ${id}\n`);
  t.regex((await keys(dir, ['list', '--workspace', 'acme'])).stdout, new RegExp(`^${id}  revoked  `));

  const stack = await startStack({ DATA_DIR: dir });
  try {
    const answer = async (bearer: string) =>
      (await fetch(`${stack.url}/v1/routing`, { headers: { authorization: `Bearer ${bearer}` } })).status;
    t.is(await answer(spare), 200);
    t.is(await answer(secret), 401);
  } finally {
    await stack.stop();
  }
});

test('refusals: missing options are usage errors (2), a life beyond KEY_MAX_TTL or an unknown key fails (1), an unmigrated database too', async (t) => {
  const dir = await dataDir(t);
  const unmigrated = await keys(dir, ['list', '--workspace', 'acme']);
  t.is(unmigrated.code, 1);
  t.regex(unmigrated.stderr, /run switchyard migrate first/);
  t.is((await runCli(['migrate'], { DATA_DIR: dir, DATABASE_URL: '', BLOB_STORE: '' })).code, 0);
  for (const args of [
    [],
    ['rotate', '--workspace', 'acme'],
    ['create', '--name', 'n', '--ttl', '1d'],
    ['create', '--workspace', 'acme', '--ttl', '1d'],
    ['create', '--workspace', 'acme', '--name', 'n'],
    ['create', '--workspace', 'acme', '--name', 'n', '--ttl', 'forever'],
    ['create', '--workspace', 'acme', '--name', 'n', '--ttl', '1d', '--scope', 'routes:fly'],
    ['create', '--workspace', 'a b', '--name', 'n', '--ttl', '1d'],
    ['revoke', '--workspace', 'acme'],
  ]) {
    const run = await keys(dir, args);
    t.is(run.code, args.length === 0 ? 0 : 2, `${args.join(' ')}: ${run.stderr}`);
  }
  const tooLong = await keys(dir, ['create', '--workspace', 'acme', '--name', 'n', '--ttl', '8d'], { KEY_MAX_TTL: '7d' });
  t.is(tooLong.code, 1);
  t.regex(tooLong.stderr, /expiresAt/);
  t.is((await keys(dir, ['create', '--workspace', 'acme', '--name', 'n', '--ttl', '7d'], { KEY_MAX_TTL: '7d' })).code, 0);
  const badConfig = await keys(dir, ['list', '--workspace', 'acme'], { KEY_MAX_TTL: '10y' });
  t.is(badConfig.code, 1);
  t.regex(badConfig.stderr, /KEY_MAX_TTL/);
  const unknown = await keys(dir, ['revoke', '--workspace', 'acme', '--id', 'key_00000000000000000000000000']);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /not found/);
});
