// `switchyard migrate` (npm run migrate) through the CLI's main, in process, configured by the environment it is given.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliRun } from '../support/cli.js';
import { createTestMysqlDatabase, stillReachable, testNeedingMysql } from '../support/mysql.js';

const mysqlTest = await testNeedingMysql();

function migrate(env: Record<string, string>): Promise<CliRun> {
  // Only the variables under test: the developer's own DATABASE_URL must not leak in.
  return runCli(['migrate'], {
    DATABASE_URL: '',
    BLOB_STORE: '',
    DATA_DIR: '',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...env,
  });
}

test('SQLite in DATA_DIR: applies the migrations, then reports the schema up to date', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-migrate-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const first = await migrate({ DATA_DIR: dir });
  t.is(first.code, 0, first.stderr);
  const where = `SQLite ${join(dir, 'switchyard.sqlite')}`;
  t.is(
    first.stdout,
    `${where}: applied 0001-initial\n${where}: applied 0002-assets-by-workspace\n${where}: applied 0003-asset-visibility-and-policies\n${where}: applied 0004-route-revisions\n${where}: applied 0005-resumable-uploads\n${where}: applied 0006-asset-names\n${where}: applied 0007-media-facts\n${where}: applied 0008-asset-changes\n${where}: applied 0009-route-owners\n${where}: applied 0010-api-keys\n${where}: applied 0011-versions-and-trash\n${where}: applied 0012-webhooks\n${where}: applied 0013-routes-by-owner\n`,
  );
  const second = await migrate({ DATA_DIR: dir });
  t.is(second.code, 0, second.stderr);
  t.regex(second.stdout, /: already up to date\n$/);
});

mysqlTest('MySQL from DATABASE_URL', async (t) => {
  const database = stillReachable(await createTestMysqlDatabase(t));
  const run = await migrate({ DATABASE_URL: database.url });
  t.is(run.code, 0, run.stderr);
  const where = `MySQL 127\\.0\\.0\\.1:3306/${database.name}`;
  t.regex(
    run.stdout,
    new RegExp(
      `^${where}: applied 0001-initial\\n${where}: applied 0002-assets-by-workspace\\n${where}: applied 0003-asset-visibility-and-policies\\n${where}: applied 0004-route-revisions\\n${where}: applied 0005-resumable-uploads\\n${where}: applied 0006-asset-names\\n${where}: applied 0007-media-facts\\n${where}: applied 0008-asset-changes\\n${where}: applied 0009-route-owners\\n${where}: applied 0010-api-keys\\n${where}: applied 0011-versions-and-trash\\n${where}: applied 0012-webhooks\\n${where}: applied 0013-routes-by-owner\\n$`,
    ),
  );
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
