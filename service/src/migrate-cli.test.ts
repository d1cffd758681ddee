// `npm run migrate` as users run it: a separate process configured by its environment.
import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestMysqlDatabase } from './testing/mysql.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function migrate(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Only the variables under test: the developer's own DATABASE_URL must not leak in.
  const clean = { DATABASE_URL: '', BLOB_STORE: '', DATA_DIR: '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  const child = spawn(process.execPath, ['--import', 'tsx', 'service/src/migrate-cli.ts'], { cwd: ROOT, env: { ...process.env, ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'close');
  return { code: code as number | null, stdout, stderr };
}

test('SQLite in DATA_DIR: applies the migrations, then reports the schema up to date', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-migrate-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const first = await migrate({ DATA_DIR: dir });
  t.is(first.code, 0, first.stderr);
  t.is(first.stdout, `SQLite ${join(dir, 'switchyard.sqlite')}: applied 0001-initial\n`);
  const second = await migrate({ DATA_DIR: dir });
  t.is(second.code, 0, second.stderr);
  t.regex(second.stdout, /: already up to date\n$/);
});

test('MySQL from DATABASE_URL', async (t) => {
  const database = await createTestMysqlDatabase(t);
  if (!database) return t.pass('MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)');
  const run = await migrate({ DATABASE_URL: database.url });
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, new RegExp(`^MySQL 127\\.0\\.0\\.1:3306/${database.name}: applied 0001-initial\\n$`));
});

test('a bad DATABASE_URL or an unreachable database exits 1 with one clear message and no stack', async (t) => {
  const bad = await migrate({ DATABASE_URL: 'postgres://x@y/z' });
  t.is(bad.code, 1);
  t.regex(bad.stderr, /DATABASE_URL: .*not a mysql:\/\/ URL/);
  const unreachable = await migrate({ DATABASE_URL: 'mysql://root:secret@127.0.0.1:1/switchyard' });
  t.is(unreachable.code, 1);
  t.regex(unreachable.stderr, /^database migrations could not run: /);
  t.false(unreachable.stderr.includes('    at '), 'no stack trace');
  t.false(unreachable.stderr.includes('secret'), 'no password');
});
