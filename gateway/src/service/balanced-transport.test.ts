import test from 'ava';
import { create, type DescMessage, type DescMethodStreaming, type DescMethodUnary } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type StreamResponse, type Transport, type UnaryResponse } from '@connectrpc/connect';
import { AssetService, FileService, RouteService, type Asset } from '@switchyard/proto';
import { createClock } from '@sinonjs/fake-timers';
import { timeSourceOf } from '@switchyard/core/testing';
import { createLogger } from '@switchyard/runtime';
import { createBalancedTransport } from './balanced-transport.js';
import { ServicePool } from './service-pool.js';

type Behaviour = 'ok' | 'dead' | 'refused-by-service';

/** The clock every setup runs on: a call to a dead connection takes DEAD_CALL_MS of it. */
type FakeClock = ReturnType<typeof createClock>;
const DEAD_CALL_MS = 1_234;

/** A member's transport that answers as told and records what it was asked, and with which deadline. */
class FakeMember {
  behaviour: Behaviour = 'ok';
  readonly calls: { method: string; timeoutMs: number | undefined }[] = [];
  constructor(
    readonly url: string,
    private readonly fake: FakeClock,
  ) {}

  readonly transport: Transport = {
    unary: async <I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      _signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
    ): Promise<UnaryResponse<I, O>> => {
      this.calls.push({ method: method.name, timeoutMs });
      this.#fail();
      const message = create(method.output, { label: this.url } as never);
      return { stream: false, service: method.parent, method, header: new Headers(), trailer: new Headers(), message };
    },
    stream: async <I extends DescMessage, O extends DescMessage>(method: DescMethodStreaming<I, O>): Promise<StreamResponse<I, O>> => {
      this.calls.push({ method: method.name, timeoutMs: undefined });
      this.#fail();
      const output = method.output;
      return {
        stream: true,
        service: method.parent,
        method,
        header: new Headers(),
        trailer: new Headers(),
        message: (async function* () {
          yield create(output);
        })(),
      };
    },
  };

  #fail(): void {
    // A dead connection: no grpc-status came back (grpc-exchange.ts, Connect's node-error mapping).
    if (this.behaviour === 'dead') {
      this.fake.tick(DEAD_CALL_MS);
      throw new ConnectError('the connection to the service closed before it answered', Code.Unavailable);
    }
    // The service's own answer: its status travels in the trailers.
    if (this.behaviour === 'refused-by-service')
      throw new ConnectError('the database does not answer', Code.Unavailable, new Headers({ 'grpc-status': '14' }));
  }
}

function setup(count: number, probe: (url: string) => boolean = () => true) {
  const fake = createClock(0);
  const time = timeSourceOf(fake);
  const members = Array.from({ length: count }, (_, i) => new FakeMember(`http://10.0.0.${i + 1}:1`, fake));
  const byUrl = new Map(members.map((member) => [member.url, member]));
  const failed: string[] = [];
  let retries = 0;
  let healthy = -1;
  const transports = new Map(members.map((member) => [member.transport, member]));
  const pool = new ServicePool({
    connect: (address) => ({ transport: byUrl.get(address.url)!.transport, close: () => {} }),
    probe: async (transport) => (probe(transports.get(transport)!.url) ? { serving: true } : { serving: false, reason: 'NOT_SERVING' }),
    log: createLogger('silent'),
    onHealthyCount: (count) => (healthy = count),
    timings: { intervalMs: 60_000, retryMs: 60_000, timeoutMs: 1_000 },
    time,
  });
  pool.update(members.map((member) => ({ url: member.url, servername: undefined })));
  const transport = createBalancedTransport(
    {
      pick: (besides) => pool.pick(besides),
      fail: (member, reason) => (failed.push(`${member.url}: ${reason}`), pool.fail(member, reason)),
      starved: () => {},
      resolved: Promise.resolve(),
    },
    { onRetry: () => (retries += 1), time },
  );
  return {
    fake,
    members,
    pool,
    failed,
    transport,
    assets: createClient(AssetService, transport),
    retries: () => retries,
    healthy: () => healthy,
  };
}

const label = (asset: Asset): string => asset.label;

test('calls go round-robin over every connection', async (t) => {
  const { assets, members } = setup(3);
  const served: string[] = [];
  for (let i = 0; i < 6; i++) served.push(label(await assets.getAsset({ id: 'a' })));
  t.deepEqual(
    served,
    [...members, ...members].map((member) => member.url),
  );
});

test('a read whose connection died is sent once more on another, which then takes the calls; the dead one is out', async (t) => {
  const { assets, members, failed, retries, pool } = setup(3);
  members[0]!.behaviour = 'dead';
  const answeredBy = label(await assets.getAsset({ id: 'a' }, { timeoutMs: 5_000 }));
  t.not(answeredBy, members[0]!.url);
  t.is(retries(), 1);
  t.deepEqual(failed, [`${members[0]!.url}: the connection to the service closed before it answered`]);
  t.is(pool.snapshot().find((entry) => entry.url === members[0]!.url)!.state, 'unhealthy');
  const retry = members.find((member) => member.url === answeredBy)!.calls[0]!;
  t.is(retry.timeoutMs, 5_000 - DEAD_CALL_MS, 'the retry gets what is left of the deadline');
  const later: string[] = [];
  for (let i = 0; i < 4; i++) later.push(label(await assets.getAsset({ id: 'a' })));
  t.false(later.includes(members[0]!.url), 'no call goes to the dead connection');
  t.is(members[0]!.calls.length, 1);
});

test('a read is retried once only: when the second connection dies too, the caller gets unavailable', async (t) => {
  const { assets, members, retries } = setup(3);
  for (const member of members) member.behaviour = 'dead';
  const error = await t.throwsAsync(assets.getAsset({ id: 'a' }));
  t.is(ConnectError.from(error).code, Code.Unavailable);
  t.is(retries(), 1);
  t.is(
    members.reduce((sum, member) => sum + member.calls.length, 0),
    2,
    'two attempts in all',
  );
});

test('writes are not retried: a dead connection fails them with unavailable', async (t) => {
  const { assets, members, retries, failed } = setup(2);
  members[0]!.behaviour = 'dead';
  const error = await t.throwsAsync(assets.deleteAsset({ id: 'a' }));
  t.is(ConnectError.from(error).code, Code.Unavailable);
  t.is(retries(), 0);
  t.is(members[1]!.calls.length, 0);
  t.is(failed.length, 1, 'the dead connection is still taken out');
});

test("the service's own errors pass through untouched: no retry, the connection stays in", async (t) => {
  const { assets, members, retries, failed } = setup(2);
  members[0]!.behaviour = 'refused-by-service';
  const error = ConnectError.from(await t.throwsAsync(assets.getAsset({ id: 'a' })));
  t.is(error.rawMessage, 'the database does not answer');
  t.is(retries(), 0);
  t.deepEqual(failed, []);
});

test('streams are never retried: a client stream (upload) and a server stream (file bytes) that die fail with unavailable', async (t) => {
  const { transport, members, retries } = setup(2);
  for (const member of members) member.behaviour = 'dead';
  const upload = AssetService.method.uploadAsset;
  const read = FileService.method.readFile;
  const input = (async function* () {})();
  t.is(ConnectError.from(await t.throwsAsync(transport.stream(upload, undefined, undefined, undefined, input))).code, Code.Unavailable);
  t.is(ConnectError.from(await t.throwsAsync(transport.stream(read, undefined, undefined, undefined, input))).code, Code.Unavailable);
  t.is(retries(), 0);
  t.is(members[0]!.calls.length + members[1]!.calls.length, 2, 'one attempt each');
});

test('a connection failing its health check takes no calls; when none is healthy, calls go to all (and fail as they would alone)', async (t) => {
  let notServing = new Set(['http://10.0.0.1:1']);
  const { assets, members, healthy, fake } = setup(3, (url) => !notServing.has(url));
  await fake.tickAsync(0);
  t.is(healthy(), 2);
  const served = new Set<string>();
  for (let i = 0; i < 6; i++) served.add(label(await assets.getAsset({ id: 'a' })));
  t.deepEqual([...served].sort(), [members[1]!.url, members[2]!.url]);

  notServing = new Set(members.map((member) => member.url));
  const {
    assets: lonely,
    healthy: lonelyHealthy,
    members: lonelyMembers,
    fake: lonelyClock,
    pool,
  } = setup(2, (url) => !notServing.has(url));
  await lonelyClock.tickAsync(0);
  t.is(lonelyHealthy(), 0);
  t.deepEqual(
    pool.snapshot().map((entry) => entry.state),
    ['unhealthy', 'unhealthy'],
  );
  const tried = new Set<string>();
  for (let i = 0; i < 4; i++) tried.add(label(await lonely.getAsset({ id: 'a' })));
  t.is(tried.size, lonelyMembers.length);
});

test('a call made before the first resolution waits for it', async (t) => {
  const { members, pool } = setup(1);
  let resolve = (): void => undefined;
  const resolved = new Promise<void>((done) => (resolve = done));
  let ready = false;
  const transport = createBalancedTransport({
    pick: (besides) => (ready ? pool.pick(besides) : undefined),
    fail: () => t.fail(),
    starved: () => t.fail(),
    resolved,
  });
  const call = createClient(AssetService, transport).getAsset({ id: 'a' });
  let settled = false;
  void call.finally(() => (settled = true)).catch(() => undefined);
  await new Promise((done) => setImmediate(done));
  t.false(settled, 'still waiting for the resolution');
  ready = true;
  resolve();
  t.is(label(await call), members[0]!.url);
});

test('with no address at all, a call fails unavailable at once and asks for a resolution', async (t) => {
  let starved = 0;
  const transport = createBalancedTransport({
    pick: () => undefined,
    fail: () => t.fail(),
    starved: () => void (starved += 1),
    resolved: Promise.resolve(),
  });
  const error = ConnectError.from(await t.throwsAsync(createClient(RouteService, transport).getRoute({ id: 'r' })));
  t.is(error.code, Code.Unavailable);
  t.is(starved, 1);
});
