import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { status as Status, type ClientWritableStream, type ServiceError } from '@grpc/grpc-js';
import type { ReplaceAssetRequest } from '@switchyard/service/gen/switchyard/v1/assets.js';
import { mysqlS3Target, sqliteDiskTarget } from '../grpc/support/storage-targets.js';
import { startTestService } from '../grpc/support/test-service.js';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';
import { RawClient, uploadBody, uploadHead, type RawAnswer } from './support/raw-client.js';
import { scaled, SOAK } from './support/soak.js';
import { storedIn } from './support/stored.js';
import { eventually, quietPeriod } from '../support/eventually.js';
import { stillReachable, testNeedingMysql } from '../support/mysql.js';

const mysqlTest = await testNeedingMysql();

// Short limits so the quick run stays quick; the defaults are 20 s, 15 min, 30 s and 60 s.
const HEADERS_MS = 400;
const BODY_IDLE_MS = 400;
const REQUEST_MS = 4_000;
/** Above the gateway's 1 s chunk hold (rest/assets.ts), as the 60 s default is. */
const UPLOAD_IDLE_MS = 1_500;
/** Node checks the headers and request timeouts every 250 ms; the body watch polls at a tenth of its timeout. */
const SLACK_MS = 1_500;
const SLOW_ENV = {
  HEADERS_TIMEOUT_MS: String(HEADERS_MS),
  BODY_IDLE_TIMEOUT_MS: String(BODY_IDLE_MS),
  REQUEST_TIMEOUT_MS: String(REQUEST_MS),
  UPLOAD_IDLE_TIMEOUT_MS: String(UPLOAD_IDLE_MS),
};

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const stacks: Stack[] = [];
async function stack(env: Record<string, string> = SLOW_ENV): Promise<Stack> {
  const started = await startStack(env);
  stacks.push(started);
  return started;
}
test.after.always(async () => {
  await Promise.all(stacks.map((s) => s.stop()));
});

function assertTimeoutAnswer(t: import('ava').ExecutionContext, answer: RawAnswer, withinMs: number): void {
  t.is(answer.status, 408, answer.body);
  t.like(answer.json(), { code: 'deadline_exceeded' });
  t.is(typeof answer.json()['message'], 'string');
  t.true(Array.isArray(answer.json()['details']));
  t.true(answer.closedAfterMs <= withinMs, `closed after ${Math.round(answer.closedAfterMs)} ms, bound ${withinMs} ms`);
}

async function assertNothingStored(t: import('ava').ExecutionContext, s: Stack): Promise<void> {
  // A negative check: the service learns of the cut a moment after the client does, and must then leave nothing behind.
  await quietPeriod(200);
  const stored = await storedIn(s.dataDir);
  t.deepEqual(
    { ...stored, files: stored.files.filter((file) => !file.endsWith('/')) },
    { assetRows: 0, routeRows: 0, uploads: [], blobKeys: [], files: [], keys: [], webhooks: [], deliveryRows: 0 },
  );
}

async function assertHealthy(t: import('ava').ExecutionContext, s: Stack): Promise<void> {
  t.is((await fetch(`${s.url}/healthz`)).status, 200);
  const body = new FormData();
  body.append('file', new Blob([randomBytes(2048)]), 'after.bin');
  const response = await fetch(`${s.url}/v1/assets/upload`, { method: 'POST', headers: await s.auth(freshWorkspace()), body });
  t.is(response.status, 201, await response.clone().text());
}

// Serial: its bound is a few hundred milliseconds past the server's timeout, which the file's concurrent floods would eat.
test.serial('slow headers: a request whose headers trickle in is answered 408 and closed, however many at once', async (t) => {
  const s = await stack();
  const count = scaled(20, 500);
  const started = performance.now();
  const clients = await Promise.all(Array.from({ length: count }, () => RawClient.open(s.url)));
  // Each sends its request line, then a header byte every 100 ms, forever.
  const trickles = clients.map((client) =>
    client.trickle(`GET /v1/assets/as_01 HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(10_000)}`, 1, 100),
  );
  // Meanwhile a normal request is served as usual.
  t.is((await fetch(`${s.url}/healthz`)).status, 200);
  const answers = await Promise.all(clients.map((client) => client.answer(HEADERS_MS + SLACK_MS + 2_000)));
  for (const answer of answers) assertTimeoutAnswer(t, answer, HEADERS_MS + SLACK_MS + (SOAK ? 2_000 : 0));
  await Promise.all(trickles);
  t.log(`${count} slow-header connections, all 408 and closed within ${Math.round(performance.now() - started)} ms`);
  await assertHealthy(t, s);
});

// Serial: its bound is a few hundred milliseconds past the server's timeout, which the file's concurrent floods would eat.
test.serial('a connection that sends nothing is closed after the headers timeout', async (t) => {
  const s = await stack();
  const client = await RawClient.open(s.url);
  const answer = await client.answer(HEADERS_MS + SLACK_MS + 2_000);
  t.true(answer.closedAfterMs <= HEADERS_MS + SLACK_MS, `closed after ${Math.round(answer.closedAfterMs)} ms`);
  t.true(answer.status === 0 || answer.status === 408, `status ${answer.status}`);
});

test('a stalled upload body is 408 at the body idle timeout, and nothing is stored (record, blob, temp file)', async (t) => {
  const s = await stack();
  const rounds = scaled(3, 30);
  for (let round = 0; round < rounds; round++) {
    const client = await RawClient.open(s.url);
    const boundary = `stall${round}`;
    const { head, partHead } = uploadHead('/v1/assets/upload', (await s.auth(freshWorkspace())).authorization!, boundary, 1_000_000);
    // Headers, the file part's head and 200 KiB of the file (past the first chunk to the service), then silence.
    await client.write(head);
    await client.write(partHead);
    await client.write(randomBytes(200 * 1024));
    assertTimeoutAnswer(t, await client.answer(), BODY_IDLE_MS + SLACK_MS + 500);
  }
  await assertNothingStored(t, s);
  // The service saw the call canceled, not failed.
  const uploadCalls = () =>
    s.serviceLogLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['method'] === 'UploadAsset' && line['msg'] === 'call');
  const calls = await eventually(() => uploadCalls().length >= rounds && uploadCalls(), {
    timeout: 10_000,
    message: `${rounds} UploadAsset calls logged`,
  });
  t.is(calls.length, rounds);
  for (const call of calls) t.is(call['code'], 'CANCELLED');
  await assertHealthy(t, s);
});

/** A fresh workspace's resumable upload of a 1 MB file, created and empty. */
interface TusUpload {
  readonly auth: string;
  readonly tus: Record<string, string>;
  readonly file: Buffer;
  readonly path: string;
}

async function startTusUpload(t: import('ava').ExecutionContext, s: Stack): Promise<TusUpload> {
  const auth = (await s.auth(freshWorkspace())).authorization!;
  const tus = { authorization: auth, 'tus-resumable': '1.0.0' };
  const file = randomBytes(1_000_000);
  const created = await fetch(`${s.url}/v1/uploads`, { method: 'POST', headers: { ...tus, 'upload-length': String(file.length) } });
  t.is(created.status, 201, await created.clone().text());
  return { auth, tus, file, path: new URL(created.headers.get('location')!).pathname };
}

/** A raw connection with a tus PATCH's head written: its body is the caller's to send (or not). */
async function openTusPatch(url: string, path: string, auth: string, offset: number, length: number): Promise<RawClient> {
  const client = await RawClient.open(url);
  await client.write(
    `PATCH ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nTus-Resumable: 1.0.0\r\nContent-Type: application/offset+octet-stream\r\n` +
      `Upload-Offset: ${offset}\r\nContent-Length: ${length}\r\n\r\n`,
  );
  return client;
}

/**
 * Rounds of a PATCH cut short: each sends some of the rest (a different amount
 * each round), then `cut` ends it as a client would (stalling, leaving); HEAD,
 * as a tus client asks next, must show every byte that arrived. Resolves with
 * the offset reached.
 */
async function cutPatches(
  t: import('ava').ExecutionContext,
  s: Stack,
  upload: TusUpload,
  cut: (client: RawClient) => Promise<void>,
  how: string,
): Promise<number> {
  const { auth, tus, file, path } = upload;
  const rounds = scaled(3, 30);
  let offset = 0;
  for (let round = 0; round < rounds; round++) {
    const client = await openTusPatch(s.url, path, auth, offset, file.length - offset);
    const sent = Math.floor((file.length - offset) / (rounds + 1 - round)) - round * 1_000;
    await client.write(file.subarray(offset, offset + sent));
    await cut(client);
    const head = await fetch(`${s.url}${path}`, { method: 'HEAD', headers: tus });
    t.is(head.status, 200);
    t.is(head.headers.get('upload-length'), String(file.length));
    t.is(Number(head.headers.get('upload-offset')), offset + sent, `round ${round}: every byte that arrived before ${how} is kept`);
    offset = Number(head.headers.get('upload-offset'));
  }
  return offset;
}

/** Sends the rest from `offset`; the upload's asset must be the whole file. Resolves with the asset's id. */
async function finishTusUpload(
  t: import('ava').ExecutionContext,
  s: Stack,
  { auth, tus, file, path }: TusUpload,
  offset: number,
): Promise<string> {
  const rest = await fetch(`${s.url}${path}`, {
    method: 'PATCH',
    headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
    body: new Uint8Array(file.subarray(offset)),
  });
  t.is(rest.status, 204, await rest.clone().text());
  t.is(rest.headers.get('upload-offset'), String(file.length));
  const assetId = rest.headers.get('switchyard-asset-id');
  t.truthy(assetId);
  const asset = (await (await fetch(`${s.url}/v1/assets/${assetId}`, { headers: { authorization: auth } })).json()) as Record<
    string,
    unknown
  >;
  t.is(asset['sha256'], createHash('sha256').update(file).digest('hex'));
  return assetId!;
}

// Serial (ava runs them before the concurrent tests): their megabyte uploads stay out of the way of the timing-bound tests below.
test.serial(
  'a stalled tus PATCH is 408 at the body idle timeout; the bytes that arrived are kept, and HEAD shows the offset moved by them',
  async (t) => {
    const s = await stack();
    const upload = await startTusUpload(t, s);
    const stall = async (client: RawClient): Promise<void> => assertTimeoutAnswer(t, await client.answer(), BODY_IDLE_MS + SLACK_MS + 500);
    await finishTusUpload(t, s, upload, await cutPatches(t, s, upload, stall, 'the stall'));
    // Nothing else is left behind: one asset, its blob, no part of the upload.
    const stored = await storedIn(s.dataDir);
    t.is(stored.assetRows, 1);
    t.is(stored.blobKeys.length, 1, stored.blobKeys.join(', '));
    await assertHealthy(t, s);
  },
);

test.serial('a tus PATCH whose client goes away mid-body keeps the bytes that arrived, as HEAD shows', async (t) => {
  const s = await stack();
  const upload = await startTusUpload(t, s);
  const leave = async (client: RawClient): Promise<void> => {
    // Well inside the body idle timeout: the client leaves, nobody timed it out.
    await sleep(100);
    client.socket.destroy();
  };
  await finishTusUpload(t, s, upload, await cutPatches(t, s, upload, leave, 'the client left'));
});

test('a stalled JSON body is 408 and creates nothing', async (t) => {
  const s = await stack();
  const client = await RawClient.open(s.url);
  const body = JSON.stringify({ method: 'GET', path: '/stalled', handler: 'h' });
  await client.write(
    `POST /v1/routing HTTP/1.1\r\nHost: x\r\nAuthorization: ${(await s.auth(freshWorkspace())).authorization}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  await client.write(body.slice(0, 10));
  assertTimeoutAnswer(t, await client.answer(), BODY_IDLE_MS + SLACK_MS + 500);
  await assertNothingStored(t, s);
});

test('a body that trickles forever (never idle) is cut at the request timeout, and nothing is stored', async (t) => {
  const s = await stack();
  const client = await RawClient.open(s.url);
  const boundary = 'trickle';
  const { head, partHead } = uploadHead('/v1/assets/upload', (await s.auth(freshWorkspace())).authorization!, boundary, 1_000_000);
  await client.write(head + partHead);
  // 16 bytes every 100 ms: never idle for the body timeout, never done.
  const trickled = client.trickle(randomBytes(100_000), 16, 100);
  assertTimeoutAnswer(t, await client.answer(REQUEST_MS + SLACK_MS + 2_000), REQUEST_MS + SLACK_MS);
  await trickled;
  await assertNothingStored(t, s);
  await assertHealthy(t, s);
});

// Serial: its bound is a few hundred milliseconds past the server's timeout, which the file's concurrent floods would eat.
test.serial('a slow but steady upload is not mistaken for a stalled one, at the gateway or at the service', async (t) => {
  const s = await stack();
  const bytes = randomBytes(16 * 1024);
  const boundary = 'steady';
  const body = uploadBody(boundary, bytes);
  const client = await RawClient.open(s.url);
  const { head } = uploadHead('/v1/assets/upload', (await s.auth(freshWorkspace())).authorization!, boundary, body.length);
  await client.write(head);
  // ~3.3 s in 512-byte pieces every 100 ms: twice the service's upload idle timeout (1.5 s) in all,
  // each gap well inside the gateway's body idle timeout (0.4 s), and the whole inside the request timeout (4 s).
  await client.trickle(body, 512, 100);
  const answer = await client.answer();
  t.is(answer.status, 201, answer.body);
  t.is(answer.json()['sha256'], createHash('sha256').update(bytes).digest('hex'));
});

test('connections beyond MAX_CONNECTIONS get 503 with Retry-After at once; the bound frees as they close', async (t) => {
  const s = await stack({ MAX_CONNECTIONS: '8', HEADERS_TIMEOUT_MS: '30000' });
  const held = await Promise.all(Array.from({ length: 8 }, () => RawClient.open(s.url)));
  for (const client of held) await client.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
  const flood = scaled(200, 5_000);
  const before = heapAfterGc();
  const started = performance.now();
  let refused = 0;
  for (let offset = 0; offset < flood; offset += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, flood - offset) }, () => RawClient.open(s.url)));
    for (const client of batch) void client.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    for (const answer of await Promise.all(batch.map((client) => client.answer(5_000)))) {
      t.is(answer.status, 503);
      t.is(answer.headers['retry-after'], '1');
      t.like(answer.json(), { code: 'unavailable' });
      refused += 1;
    }
  }
  // An ordinary HTTP client reads the refusal as the answer to its request.
  const refusedFetch = await fetch(`${s.url}/healthz`, { headers: { connection: 'close' } });
  t.is(refusedFetch.status, 503);
  t.is(refusedFetch.headers.get('retry-after'), '1');
  t.like(await refusedFetch.json(), { code: 'unavailable' });
  const elapsed = Math.round(performance.now() - started);
  await sleep(200);
  // Client and server share this process: after the flood, the heap is back near where it started.
  const grownMiB = (heapAfterGc() - before) / 2 ** 20;
  t.log(
    `${refused} connections over the bound refused in ${elapsed} ms; heap after GC ${grownMiB >= 0 ? '+' : ''}${grownMiB.toFixed(1)} MiB`,
  );
  t.true(grownMiB < 20, `heap grew ${grownMiB.toFixed(1)} MiB`);
  // The held connections are still served.
  await held[0]!.write('\r\n');
  await sleep(100);
  for (const client of held) client.close();
  // The bound frees as they close: the server learns of each close a moment later.
  await eventually(async () => (await fetch(`${s.url}/healthz`, { headers: { connection: 'close' } })).status === 200, {
    timeout: 10_000,
    message: 'a connection admitted once the held ones closed',
  });
});

test('uploads beyond MAX_INFLIGHT_UPLOADS get 503 with Retry-After, unread; the ones in flight finish', async (t) => {
  const s = await stack({ MAX_INFLIGHT_UPLOADS: '2' });
  const auth = (await s.auth(freshWorkspace())).authorization!;
  const bytes = randomBytes(100 * 1024);
  const inFlight = await Promise.all(
    ['a', 'b'].map(async (boundary) => {
      const body = uploadBody(boundary, bytes);
      const client = await RawClient.open(s.url);
      await client.write(uploadHead('/v1/assets/upload', auth, boundary, body.length).head);
      await client.write(body.subarray(0, 50_000));
      return { client, rest: body.subarray(50_000) };
    }),
  );
  await sleep(200);
  const refusals = scaled(5, 200);
  for (let i = 0; i < refusals; i++) {
    const form = new FormData();
    form.append('file', new Blob([randomBytes(256 * 1024)]), 'extra.bin');
    const response = await fetch(`${s.url}/v1/assets/upload`, { method: 'POST', headers: { authorization: auth }, body: form });
    t.is(response.status, 503);
    t.is(response.headers.get('retry-after'), '1');
    t.like(await response.json(), { code: 'unavailable' });
  }
  for (const { client, rest } of inFlight) {
    await client.write(rest);
    const answer = await client.answer();
    t.is(answer.status, 201, answer.body);
  }
  const stored = await storedIn(s.dataDir);
  t.is(stored.assetRows, 2);
  t.is(stored.blobKeys.length, 2);
  await assertHealthy(t, s);
});

// The gRPC service directly: a client stream that stops sending is abandoned at UPLOAD_IDLE_TIMEOUT_MS.

for (const [makeTarget, register] of [
  [sqliteDiskTarget, test],
  [mysqlS3Target, mysqlTest],
] as const) {
  register(`gRPC ${makeTarget.name}: a stalled upload or replace stream ends DEADLINE_EXCEEDED and stores nothing`, async (t) => {
    const target = stillReachable(await makeTarget());
    const service = await startTestService({ storage: target.storage, dataDir: target.dataDir, env: { UPLOAD_IDLE_TIMEOUT_MS: '500' } });
    t.teardown(async () => {
      await service.stop();
      await target.cleanup();
    });
    const auth = await service.auth(freshWorkspace());
    const original = await service.clients.upload(auth, { label: 'original' }, randomBytes(5000));
    const before = await target.snapshot();
    const rounds = scaled(2, 20);
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      // Metadata and 100 KiB, then nothing; no metadata at all; a replace that stalls half way.
      const mid = service.clients.startUpload(auth);
      mid.stream.write({ metadata: { label: 'stalled', filename: '', declaredType: '', visibility: '' } });
      mid.stream.write({ chunk: randomBytes(100 * 1024) });
      const silent = service.clients.startUpload(auth);
      let replaceStream!: ClientWritableStream<ReplaceAssetRequest>;
      const replaced = new Promise<unknown>((resolve, reject) => {
        replaceStream = service.clients.assets.replaceAsset(auth, (error, value) => (error ? reject(error) : resolve(value)));
      });
      replaceStream.write({ metadata: { id: original.id, filename: '', declaredType: '', visibility: '' } });
      replaceStream.write({ chunk: randomBytes(100 * 1024) });
      for (const outcome of await Promise.allSettled([mid.result, silent.result, replaced])) {
        t.is(outcome.status, 'rejected');
        const error = (outcome as PromiseRejectedResult).reason as ServiceError;
        t.is(error.code, Status.DEADLINE_EXCEEDED, error.message);
        t.regex(error.details, /sent nothing for 500 ms/);
      }
      const elapsed = performance.now() - started;
      t.true(elapsed < 500 + 2_000, `abandoned after ${Math.round(elapsed)} ms`);
      for (const stream of [mid.stream, silent.stream, replaceStream]) stream.destroy();
    }
    t.deepEqual(await target.snapshot(), before, 'no record, blob or temp file; the replaced asset unchanged');
    const still = await service.clients.getAsset(auth, original.id);
    t.is(still.url, original.url);
    t.is(await service.clients.healthCheck(''), 'SERVING');
    t.is((await service.clients.upload(auth, {}, randomBytes(1000))).size, 1000);
  });
}
