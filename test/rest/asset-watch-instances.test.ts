// The asset change log across a deployment (issue 40's proof): two services,
// each with its gateway, on one MySQL database and bucket, with EVENTS_URL on
// a private Redis. 500 mixed operations (uploads over multipart, gRPC and tus;
// replaces; renames; visibility changes; single and batch deletes) go through
// both gateways and the gRPC port, one after another; three watchers (SSE on
// gateway A, cut off three times and resumed with Last-Event-ID; the client's
// watchAssets on gateway B; gRPC WatchAssets on service B) each see every
// change exactly once, in revision order, with no gap. Skipped only when MySQL
// is unreachable and not required.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createSwitchyardClient, watchAssets, type AssetWatchEvent, type SwitchyardClient } from '@switchyard/client';
import { eventually } from '../support/eventually.js';
import { startRedis, type TestBroker } from '../support/brokers.js';
import { mysqlS3Deployment, type Deployment } from '../hardening/support/deployments.js';
import { stillReachable, testNeedingMysql } from '../support/mysql.js';
import { form } from './support/http.js';
import { EVENT_DEADLINE_MS, SseWatch } from './support/sse-watch.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';
import { tusUpload } from './support/tus.js';

process.env['AWS_ACCESS_KEY_ID'] = 'S3RVER';
process.env['AWS_SECRET_ACCESS_KEY'] = 'S3RVER';

const OPERATIONS = 500;
/** After these operations the SSE watcher is cut off, and resumed a few operations later. */
const CUTS = new Set([100, 250, 400]);
const OPERATIONS_WHILE_CUT = 7;

const mysqlTest = await testNeedingMysql();

let deployment: Deployment | undefined;
let broker: TestBroker | undefined;
let a: Stack;
let b: Stack;

test.before(async () => {
  deployment = stillReachable(await mysqlS3Deployment());
  broker = await startRedis();
  const { CDN_URL: _cdn, ...env } = deployment.env;
  // Every change of the run stays in the log, so a resumed watcher replays and is never reset.
  const shared = { ...env, EVENTS_URL: broker.url, ASSET_HISTORY: String(4 * OPERATIONS) };
  a = await startStack(shared);
  b = await startStack(shared);
});
test.after.always(async () => {
  await a?.stop();
  await b?.stop();
  await broker?.close();
  await deployment?.cleanup();
});

/** A change as every watcher reports it. */
interface Seen {
  readonly revision: number;
  readonly type: string;
  readonly assetId: string;
}

/**
 * An SSE watch of gateway A that can be cut off and resumed with Last-Event-ID.
 * Every change event carries its revision as `id:`, a batch delete's several
 * alike, so the last revision seen before a cut may be incomplete: it is
 * dropped and asked for again, resuming from the revision before it (as
 * docs/assets.md tells clients to).
 */
class ResumingSseWatch {
  readonly seen: Seen[] = [];
  #watch: SseWatch;
  #consumed = 0;

  constructor(
    readonly url: string,
    readonly headers: Record<string, string>,
  ) {
    this.#watch = new SseWatch(url, headers);
  }

  get synced(): Promise<unknown> {
    return this.#watch.waitFor((event) => event.event === 'synced');
  }

  #take(): void {
    const events = this.#watch.events.slice(this.#consumed);
    this.#consumed = this.#watch.events.length;
    for (const event of events) {
      if (!event.event.startsWith('asset.')) continue;
      const change = event.data as { revision: number; type: string; assetId: string };
      t_equal(event.event, change.type);
      this.seen.push({ revision: change.revision, type: change.type, assetId: change.assetId });
    }
  }

  /** Cuts the stream; the changes of its last revision are dropped, to come again on resuming. */
  async cut(): Promise<void> {
    await this.#watch.close();
    this.#take();
    const last = this.seen.at(-1)?.revision;
    while (last !== undefined && this.seen.at(-1)?.revision === last) this.seen.pop();
  }

  resume(): void {
    const from = this.seen.at(-1)?.revision ?? 0;
    this.#watch = new SseWatch(this.url, { ...this.headers, 'last-event-id': String(from) });
    this.#consumed = 0;
  }

  /** Resolves once `count` changes have arrived. */
  async until(count: number): Promise<readonly Seen[]> {
    await eventually(
      () => {
        this.#take();
        return this.seen.length >= count;
      },
      { timeout: EVENT_DEADLINE_MS, interval: 20, message: `${count} changes on the SSE watcher` },
    );
    return this.seen;
  }

  close(): Promise<void> {
    return this.#watch.close();
  }
}

/** An event's name is its change's type: a mismatch is a broken stream. */
function t_equal(name: string, type: string): void {
  if (name !== type) throw new Error(`an event named ${name} carried a change of type ${type}`);
}

/** The same order of changes, grouped by revision (a batch delete's changes share one, in no promised order). */
function byRevision(changes: readonly Seen[]): string[] {
  const groups = new Map<number, string[]>();
  for (const change of changes) groups.set(change.revision, [...(groups.get(change.revision) ?? []), `${change.type} ${change.assetId}`]);
  return [...groups].map(([revision, group]) => `${revision}: ${group.sort().join(', ')}`);
}

mysqlTest.serial(
  '500 mixed operations through two gateways and the gRPC port: three watchers see every change once, in revision order, with no gap',
  async (t) => {
    t.timeout(15 * 60_000);
    const workspace = freshWorkspace('asset-log');
    const headers = await a.auth(workspace);
    const token = await a.token(workspace);
    const grpcA: SwitchyardClient = createSwitchyardClient({ baseUrl: `http://${a.service.address}`, token });
    const grpcB: SwitchyardClient = createSwitchyardClient({ baseUrl: `http://${b.service.address}`, token });
    t.teardown(() => (grpcA.close(), grpcB.close()));

    const sse = new ResumingSseWatch(`${a.url}/v1/assets:watch`, headers);
    t.teardown(() => sse.close());
    const client = watchAssets({ url: b.url, token });
    t.teardown(() => client.close());
    const clientSeen: Seen[] = [];
    client.onEvent((event: AssetWatchEvent) => {
      if (event.type === 'change') clientSeen.push({ revision: event.revision, type: event.change.type, assetId: event.change.assetId });
    });
    const grpcSeen: Seen[] = [];
    const grpcAbort = new AbortController();
    t.teardown(() => grpcAbort.abort());
    let grpcSynced = false;
    const grpcDone = (async () => {
      for await (const event of grpcB.assets.watchAssets({}, { signal: grpcAbort.signal })) {
        if (event.event.case === 'synced') grpcSynced = true;
        if (event.event.case === 'change') {
          const change = event.event.value;
          grpcSeen.push({ revision: Number(change.revision), type: change.type, assetId: change.assetId });
        }
      }
    })().catch((error: unknown) => {
      if (!grpcAbort.signal.aborted) throw error;
    });
    await Promise.all([
      sse.synced,
      client.ready,
      eventually(() => grpcSynced, { timeout: EVENT_DEADLINE_MS, message: 'the gRPC watch synced' }),
    ]);

    // --- The operations, one after another: each successful one is one revision, its changes expected in turn.
    const expected: Seen[] = [];
    let revision = 0;
    const live: string[] = [];
    const made = (type: string, ...assetIds: string[]) => {
      revision += 1;
      for (const assetId of assetIds) expected.push({ revision, type, assetId });
    };
    const bytes = () => new Uint8Array(randomBytes(64 + (revision % 200)));
    const gatewayOf = (i: number) => (i % 2 === 0 ? a : b);
    const rest = async (stack: Stack, method: string, path: string, body?: FormData | string, status = 200) => {
      const response = await fetch(`${stack.url}${path}`, {
        method,
        headers: typeof body === 'string' ? { ...headers, 'content-type': 'application/json' } : headers,
        ...(body === undefined ? {} : { body }),
      });
      const text = await response.text();
      t.is(response.status, status, `${method} ${path}: ${text}`);
      return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    };
    const file = () => form([['file', { bytes: bytes(), filename: `f${revision}.bin`, type: 'application/octet-stream' }]]);
    const pick = (i: number) => live[(i * 7) % live.length]!;

    const operation = async (i: number): Promise<void> => {
      const kind = live.length < 3 ? i % 4 : i % 10;
      const stack = gatewayOf(Math.floor(i / 10));
      if (kind === 0 || kind === 1) {
        const asset = await rest(stack, 'POST', '/v1/assets/upload', file(), 201);
        live.push(asset['id'] as string);
        return made('asset.created', asset['id'] as string);
      }
      if (kind === 2) {
        const asset = await (i % 20 < 10 ? grpcA : grpcB).uploadAsset(bytes(), { filename: `g${i}.bin` });
        live.push(asset.id);
        return made('asset.created', asset.id);
      }
      if (kind === 3) {
        const { assetId } = await tusUpload(Buffer.from(bytes()), {
          endpoint: `${stack.url}/v1/uploads`,
          headers,
          metadata: { filename: `t${i}.bin` },
        });
        live.push(assetId);
        return made('asset.created', assetId);
      }
      const id = pick(i);
      if (kind === 4) {
        await rest(stack, 'POST', `/v1/assets/${id}/replace`, file());
        return made('asset.replaced', id);
      }
      if (kind === 5) {
        await rest(stack, 'PATCH', `/v1/assets/${id}`, JSON.stringify({ name: `renamed-${i}.bin` }));
        return made('asset.updated', id);
      }
      if (kind === 6) {
        await rest(stack, 'PATCH', `/v1/assets/${id}`, JSON.stringify({ visibility: i % 4 < 2 ? 'private' : 'public' }));
        return made('asset.updated', id);
      }
      if (kind === 9) {
        await grpcA.assets.updateAsset({ id, label: `label-${i}` });
        return made('asset.updated', id);
      }
      if (kind === 7) {
        live.splice(live.indexOf(id), 1);
        if (i % 20 < 10) await rest(stack, 'DELETE', `/v1/assets/${id}`, undefined, 204);
        else await grpcB.assets.deleteAsset({ id });
        return made('asset.deleted', id);
      }
      const second = live.find((other) => other !== id)!;
      for (const gone of [id, second]) live.splice(live.indexOf(gone), 1);
      const answer = await rest(stack, 'POST', '/v1/assets:batchDelete', JSON.stringify({ ids: [id, second] }));
      t.deepEqual(
        (answer['results'] as { code: string }[]).map((result) => result.code),
        ['ok', 'ok'],
      );
      return made('asset.deleted', id, second);
    };

    for (let i = 0; i < OPERATIONS; i++) {
      await operation(i);
      if (!CUTS.has(i)) continue;
      await sse.cut();
      for (let j = 0; j < OPERATIONS_WHILE_CUT; j++) await operation(OPERATIONS + i + j);
      sse.resume();
    }

    const want = byRevision(expected);
    t.is(want.length, revision, 'one revision per operation');
    t.deepEqual(byRevision(await sse.until(expected.length)), want, 'SSE on gateway A, cut off three times');
    await eventually(() => clientSeen.length >= expected.length, {
      timeout: EVENT_DEADLINE_MS,
      message: `${expected.length} changes on watchAssets`,
    });
    t.deepEqual(byRevision(clientSeen), want, 'watchAssets on gateway B');
    await eventually(() => grpcSeen.length >= expected.length, {
      timeout: EVENT_DEADLINE_MS,
      message: `${expected.length} changes on gRPC WatchAssets`,
    });
    t.deepEqual(byRevision(grpcSeen), want, 'gRPC WatchAssets on service B');
    for (const [name, seen] of [
      ['SSE', sse.seen],
      ['watchAssets', clientSeen],
      ['gRPC', grpcSeen],
    ] as const) {
      t.true(
        seen.every((change, index) => index === 0 || seen[index - 1]!.revision <= change.revision),
        `${name}: in revision order as delivered`,
      );
    }
    grpcAbort.abort();
    await grpcDone;
  },
);
