import { randomBytes } from 'node:crypto';
import { createConnection, type Connection } from 'mysql2/promise';
import { testWhen, type ConditionalTest } from './conditional-test.js';

/** The machine's MariaDB, unless MYSQL_URL says otherwise. */
export const DEFAULT_MYSQL_URL = 'mysql://root@127.0.0.1:3306/test';
/**
 * A stopped server refuses at once; this bounds only a server that answers slowly. Under a loaded CI
 * machine MariaDB's greeting took over 3 s (ETIMEDOUT in a test's setup, not in what it tested).
 */
const CONNECT_TIMEOUT_MS = 15_000;

export interface TestMysqlDatabase {
  /** A mysql:// URL naming the fresh database. */
  readonly url: string;
  readonly name: string;
  /** Drops the database. Idempotent. */
  drop(): Promise<void>;
}

/** Where a test can register cleanup, as ava's `t` can. */
interface Teardown {
  teardown(fn: () => Promise<void>): void;
}

let reachable: Promise<boolean> | undefined;

/**
 * Whether the MySQL server of MYSQL_URL answers, asked once per test file.
 * Under REQUIRE_MYSQL=1 an unreachable server rejects instead, so a file that
 * awaits this at load fails.
 */
export function mysqlReachable(): Promise<boolean> {
  reachable ??= connectToServer().then(async (admin) => {
    await admin?.end();
    return admin !== undefined;
  });
  return reachable;
}

/**
 * ava's `test` when MySQL is reachable; else each test registered through it
 * is a `test.skip` titled `... (skipped: MySQL unreachable)`. Await it at
 * module load: `const mysqlTest = await testNeedingMysql();`.
 */
export async function testNeedingMysql(): Promise<ConditionalTest> {
  return testWhen(await mysqlReachable(), 'MySQL unreachable');
}

/**
 * For a test registered because MySQL answered at load: a database or
 * deployment that is `undefined` now means MySQL went away, a failure.
 */
export function stillReachable<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('MySQL answered when the tests were registered, and is unreachable now');
  return value;
}

/**
 * A fresh, empty database `sy_<random>` on the MySQL server of MYSQL_URL, so
 * test runs never share tables. Resolves `undefined` when the server is
 * unreachable, so callers can skip, unless REQUIRE_MYSQL=1, when that is an
 * error. With `t`, the database is dropped when the test ends.
 */
export async function createTestMysqlDatabase(t?: Teardown): Promise<TestMysqlDatabase | undefined> {
  const serverUrl = mysqlServerUrl();
  const admin = await connectToServer();
  if (!admin) return undefined;
  const name = `sy_${randomBytes(6).toString('hex')}`;
  try {
    // utf8mb4 with the server's default collation, case-insensitive as in most
    // deployments: the migrations, not the test database, must make comparisons exact.
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl.href);
  url.pathname = `/${name}`;

  let dropping: Promise<void> | undefined;
  const drop = () =>
    (dropping ??= (async () => {
      const connection = await createConnection({ uri: serverUrl.href, connectTimeout: CONNECT_TIMEOUT_MS });
      try {
        await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await connection.end();
      }
    })());
  t?.teardown(drop);
  return { url: url.href, name, drop };
}

function mysqlServerUrl(): URL {
  return new URL(process.env['MYSQL_URL'] || DEFAULT_MYSQL_URL);
}

/** An admin connection to the server; `undefined` when it is unreachable, unless REQUIRE_MYSQL=1, when that throws. */
async function connectToServer(): Promise<Connection | undefined> {
  const serverUrl = mysqlServerUrl();
  try {
    return await createConnection({ uri: serverUrl.href, connectTimeout: CONNECT_TIMEOUT_MS });
  } catch (error) {
    if (process.env['REQUIRE_MYSQL'] === '1') {
      throw new Error(`REQUIRE_MYSQL=1 but MySQL at ${redacted(serverUrl)} is unreachable: ${(error as Error).message}`, { cause: error });
    }
    return undefined;
  }
}

function redacted(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password) copy.password = '***';
  return copy.href;
}
