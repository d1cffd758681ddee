// Issue 45's scale-out check: two services, each behind its own gateway (real gRPC between them), on one MariaDB
// database with EVENTS_URL (a private Redis, then a private NATS: the revocation travels on either). A key is used on gateway B by a load of 50 calls a second, then revoked
// through gateway A. Service B runs on frozen fake time, so what it cached of the key never ages out: only the
// broker's message can make it refuse the key. Asserted on order, not elapsed time: once the revoke has been answered
// and B has refused the key once, every later call with it fails. (How soon is logged, not asserted.) Then the run's
// log lines and metrics hold no secret, and the database holds digests only. Skipped only when MySQL is unreachable
// and not required (REQUIRE_MYSQL=1).
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createClock } from '@sinonjs/fake-timers';
import { createConnection } from 'mysql2/promise';
import { timeSourceOf } from '@switchyard/core/testing';
import { startNats, startRedis, type TestBroker } from '../support/brokers.js';
import { eventually } from '../support/eventually.js';
import { createTestMysqlDatabase, stillReachable, testNeedingMysql } from '../support/mysql.js';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';

const mysqlTest = await testNeedingMysql();

/** The load on gateway B: calls a second, each one sent on its own (no call waits for another). */
const CALLS_PER_SECOND = 50;

interface Call {
  /** Order of sending. */
  readonly seq: number;
  /** When it was sent and answered (performance.now()). */
  readonly sentAt: number;
  answeredAt?: number;
  status?: number;
}

const BROKERS: readonly (readonly [string, () => Promise<TestBroker>])[] = [
  ['Redis', startRedis],
  ['NATS', startNats],
];

for (const [brokerName, startBroker] of BROKERS)
  mysqlTest.serial(
    `${brokerName}: a key revoked through gateway A is refused on gateway B, and no call with it succeeds there afterwards`,
    async (t) => {
      const database = stillReachable(await createTestMysqlDatabase(t));
      const broker = await startBroker();
      t.teardown(() => broker.close());
      const env = { DATABASE_URL: database.url, EVENTS_URL: broker.url, AUTH_SECRET: randomBytes(32).toString('base64url') };
      // One after the other: both would run the migrations.
      const a = await startStack(env, { channel: 'grpc' });
      t.teardown(() => a.stop());
      // Never ticked: B's key cache never ages out.
      const b = await startStack(env, { channel: 'grpc', time: timeSourceOf(createClock(Date.now())) });
      t.teardown(() => b.stop());

      const workspace = freshWorkspace('revoke');
      const admin = await a.auth(workspace);
      const created = await fetch(`${a.url}/v1/keys`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'loaded', scopes: ['routes:read'], expiresAt: new Date(Date.now() + 86_400_000).toISOString() }),
      });
      t.is(created.status, 201);
      const key = (await created.json()) as { id: string; secret: string };
      const withKey = { authorization: `Bearer ${key.secret}` };

      // The load: a call every 20 ms on B, each recorded with when it was sent and what it got.
      const calls: Call[] = [];
      const inFlight = new Set<Promise<void>>();
      const send = (): void => {
        const call: Call = { seq: calls.length, sentAt: performance.now() };
        calls.push(call);
        const done = fetch(`${b.url}/v1/routing`, { headers: withKey })
          .then(async (response) => {
            await response.arrayBuffer();
            call.status = response.status;
          })
          .catch(() => {
            call.status = 0;
          })
          .finally(() => {
            call.answeredAt = performance.now();
            inFlight.delete(done);
          });
        inFlight.add(done);
      };
      const load = setInterval(send, 1000 / CALLS_PER_SECOND);
      t.teardown(() => clearInterval(load));

      // B serves the key (and has cached it) before the revocation.
      await eventually(() => calls.some((call) => call.status === 200), { timeout: 20_000 });
      const revoke = await fetch(`${a.url}/v1/keys/${key.id}`, { method: 'DELETE', headers: admin });
      t.is(revoke.status, 204);
      const revokedAt = performance.now();
      // The first refusal on B of a call sent after the revoke was answered.
      const firstRefusal = await eventually(
        () => calls.find((call) => call.sentAt > revokedAt && call.status === 401 && call.answeredAt !== undefined),
        { timeout: 20_000, interval: 10 },
      );
      const refusedAt = firstRefusal.answeredAt!;
      // Two more seconds of load after that refusal, then the rest answered.
      await eventually(() => calls.filter((call) => call.sentAt > refusedAt).length >= 2 * CALLS_PER_SECOND, { timeout: 30_000 });
      clearInterval(load);
      await Promise.all([...inFlight]);

      const after = calls.filter((call) => call.sentAt > refusedAt);
      t.true(after.length >= 2 * CALLS_PER_SECOND);
      t.deepEqual(
        after.filter((call) => call.status !== 401).map((call) => `#${call.seq}: ${call.status}`),
        [],
        'every call sent after B refused the key once is refused',
      );
      t.true(
        calls.some((call) => call.sentAt < revokedAt && call.status === 200),
        'before the revocation, B served the key from what it had cached',
      );
      const between = calls.filter((call) => call.sentAt > revokedAt && call.sentAt <= refusedAt);
      t.log(
        `${calls.length} calls on B; ${between.filter((call) => call.status === 200).length} of ${between.length} sent between the revoke's answer and ` +
          `B's first refusal succeeded; that refusal came ${Math.round(refusedAt - revokedAt)} ms after the revoke's answer`,
      );
      // Not the key's expiry, not B's cache ageing (its clock stands still): the broker's message.
      t.is((await fetch(`${a.url}/v1/routing`, { headers: withKey })).status, 401, 'A refuses it too');

      await noSecretAnywhere(t, [a, b], key.secret);
      await digestsOnly(t, database.url, key.secret);
    },
  );

/** No secret (with or without its prefix) in any log line or metric of either stack. */
async function noSecretAnywhere(t: import('ava').ExecutionContext, stacks: Stack[], secret: string): Promise<void> {
  for (const stack of stacks) {
    const everything = [...stack.logLines, ...stack.serviceLogLines, await stack.metrics.metrics()].join('\n');
    t.true(everything.length > 1000, 'the stack did log');
    t.false(everything.includes(secret.slice(3)), 'no secret in a log line or a metric');
  }
}

/** Every table of the database, read whole: the key's digest is there, its secret nowhere. */
async function digestsOnly(t: import('ava').ExecutionContext, url: string, secret: string): Promise<void> {
  const connection = await createConnection({ uri: url });
  try {
    const [tables] = (await connection.query('SHOW TABLES')) as unknown as [Record<string, string>[]];
    let dump = '';
    for (const row of tables) {
      const [rows] = (await connection.query(`SELECT * FROM \`${Object.values(row)[0]!}\``)) as unknown as [Record<string, unknown>[]];
      // Binary columns as their bytes, so a secret stored as bytes shows too.
      for (const record of rows)
        dump += Object.values(record)
          .map((value) => (Buffer.isBuffer(value) ? value.toString('latin1') : String(value)))
          .join('\t');
    }
    t.true(dump.includes(createHash('sha256').update(secret).digest('hex')), 'the digest is stored');
    t.false(dump.includes(secret.slice(3)), 'the secret is not');
  } finally {
    await connection.end();
  }
}
