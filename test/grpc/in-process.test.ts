// The in-process channel against real gRPC to the same service: the same
// answers, errors (code, message, details, trailers) and limits, plus what
// only a channel without a socket must get right by itself (early stops,
// shutdown).
import test from 'ava';
import { join } from 'node:path';
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { AssetService, FileService, RouteService } from '@switchyard/proto';
import { fixture } from './support/fixtures.js';
import { callLine } from './support/log-capture.js';
import { startTestService, tempDir, type TestService } from './support/test-service.js';
import { mintToken } from './support/tokens.js';

let svc: TestService;
let dir: { path: string; remove(): Promise<void> };
let channels: Record<'in-process' | 'grpc', Transport>;
test.before(async () => {
  dir = await tempDir('in-process');
  svc = await startTestService({
    dataDir: dir.path,
    storage: { database: { kind: 'sqlite', file: join(dir.path, 'db.sqlite') }, blobs: { kind: 'disk', root: join(dir.path, 'files') } },
  });
  channels = { 'in-process': svc.handle.inProcess, grpc: createGrpcTransport({ baseUrl: `http://${svc.handle.address}` }) };
});
test.after.always(async () => {
  await svc?.stop();
  await dir?.remove();
});

const headers = async (workspace: string, scope?: string) => ({
  authorization: `Bearer ${await mintToken(svc.secret, { workspace, ...(scope ? { scope } : {}) })}`,
});

/** What a caller can observe of a failure. */
async function failureOf(call: Promise<unknown>) {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => ConnectError.from(reason),
  );
  if (error === undefined) return 'succeeded';
  return {
    code: Code[error.code],
    message: error.rawMessage,
    details: error.metadata.get('switchyard-error-details'),
    richDetails: error.details.length,
  };
}

/** `outcome` with every mention of `id` replaced by `<id>` (failing when it names none). */
function withIdMarked(outcome: unknown, id: string): unknown {
  const text = JSON.stringify(outcome);
  if (!text.includes(id)) return { missingId: id, outcome };
  return JSON.parse(text.replaceAll(id, '<id>')) as unknown;
}

test('both channels answer the same, errors included: code, message, field details and google.rpc details', async (t) => {
  const outcomes = [];
  for (const [name, transport] of Object.entries(channels)) {
    const routes = createClient(RouteService, transport);
    const auth = { headers: await headers(`parity-${name}`) };
    const readOnly = { headers: await headers(`parity-${name}`, 'routes:read') };
    const created = await routes.createRoute({ method: 'get', path: '/users/:id', handler: 'getUser' }, auth);
    outcomes.push({
      name,
      created: { method: created.method, path: created.path, handler: created.handler },
      matched: (await routes.matchRoute({ method: 'GET', path: '/users/7' }, auth)).params,
      // The refusal names the route in the way, whose id differs per channel: compared with the id marked.
      duplicate: withIdMarked(
        await failureOf(routes.createRoute({ method: 'GET', path: '/users/:other', handler: 'again' }, auth)),
        created.id,
      ),
      invalid: await failureOf(routes.createRoute({ method: 'FETCH', path: 'x', handler: '' }, auth)),
      unknown: await failureOf(routes.getRoute({ id: 'rt_00000000000000000000000000' }, auth)),
      anonymous: await failureOf(routes.getRoute({ id: created.id })),
      forbidden: await failureOf(routes.createRoute({ method: 'GET', path: '/', handler: 'root' }, readOnly)),
      oversized: await failureOf(routes.createRoute({ method: 'GET', path: `/${'a'.repeat(5 * 1024 * 1024)}`, handler: 'big' }, auth)),
    });
  }
  const [inProcess, grpc] = outcomes.map(({ name: _name, ...rest }) => rest);
  t.deepEqual(inProcess, grpc);
  t.like(inProcess, {
    duplicate: { code: 'AlreadyExists', message: 'route <id> (GET /users/:id) already has this method and path shape' },
  });
  t.like(inProcess, {
    unknown: { code: 'NotFound' },
    anonymous: { code: 'Unauthenticated' },
    forbidden: { code: 'PermissionDenied' },
    oversized: { code: 'ResourceExhausted' },
  });
  t.true((inProcess?.invalid as { richDetails: number }).richDetails > 0, 'google.rpc details decoded from grpc-status-details-bin');
});

test('uploads stream through and both channels store and read back the same bytes', async (t) => {
  const png = (await fixture('png')).bytes;
  for (const [name, transport] of Object.entries(channels)) {
    const assets = createClient(AssetService, transport);
    const files = createClient(FileService, transport);
    const auth = { headers: await headers(`upload-${name}`) };
    async function* messages() {
      yield { payload: { case: 'metadata' as const, value: { label: name } } };
      for (let at = 0; at < png.length; at += 1000) yield { payload: { case: 'chunk' as const, value: png.subarray(at, at + 1000) } };
    }
    const asset = await assets.uploadAsset(messages(), auth);
    t.is(asset.type, 'image/png', name);
    const path = new URL(asset.url).pathname.split('/').slice(-2).join('/');
    const received: Buffer[] = [];
    for await (const message of files.readFile({ path }))
      if (message.payload.case === 'chunk') received.push(Buffer.from(message.payload.value));
    t.deepEqual(Buffer.concat(received), png, name);
  }
});

test('in-process: a reader that stops after the first message of a long file ends the call, and the handler lets go', async (t) => {
  const transport = channels['in-process'];
  const auth = await headers('reader-leaves');
  async function* messages() {
    yield { payload: { case: 'metadata' as const, value: { label: 'streamed in many messages' } } };
    // Past the file cache's small files: read from the store in 64 KiB messages, more than the channel buffers.
    for (let i = 0; i < 4; i++) yield { payload: { case: 'chunk' as const, value: new Uint8Array(256 * 1024).fill(i) } };
  }
  const asset = await createClient(AssetService, transport).uploadAsset(messages(), { headers: auth });
  const path = new URL(asset.url).pathname.split('/').slice(-2).join('/');
  async function* request() {
    yield { path };
  }
  // Through the transport itself: Connect's promise client never hands a reader's early stop on.
  const response = await transport.stream(
    FileService.method.readFile,
    undefined,
    undefined,
    { 'x-request-id': 'reader-leaves' },
    request(),
  );
  for await (const message of response.message) {
    t.is(message.payload.case, 'info');
    break;
  }
  // Left running, the handler would wait for a reader forever and never log its call line.
  t.truthy(await svc.logs.waitFor(callLine('ReadFile', 'reader-leaves')));
});

test('a failing upload input fails the call with its own error, and the handler sees a cancel (nothing is committed)', async (t) => {
  const assets = createClient(AssetService, channels['in-process']);
  const auth = { headers: { ...(await headers('upload-fails')), 'x-request-id': 'in-process-upload-fails' } };
  const boom = new Error('the client lost its file');
  async function* messages() {
    yield { payload: { case: 'metadata' as const, value: { label: 'broken' } } };
    yield { payload: { case: 'chunk' as const, value: new Uint8Array(1000) } };
    throw boom;
  }
  const error = await t.throwsAsync(assets.uploadAsset(messages(), auth));
  t.regex(String(error), /the client lost its file/);
  const line = await svc.logs.waitFor(callLine('UploadAsset', 'in-process-upload-fails'));
  t.is(line['code'], 'CANCELLED');
});

test('a refused upload answers with the refusal, even when letting go of the rest of the input fails', async (t) => {
  // As a gateway's request stream does when the handler stops reading mid-body: returning it rejects (an
  // AbortError). fuzz-rest found such a refusal answered 'internal' when that rejection won the race.
  const assets = createClient(AssetService, channels['in-process']);
  const auth = { headers: await headers('upload-refused') };
  const sent = [
    { payload: { case: 'metadata' as const, value: { label: 'first' } } },
    { payload: { case: 'metadata' as const, value: { label: 'again' } } },
    { payload: { case: 'chunk' as const, value: new Uint8Array(10) } },
    { payload: { case: 'chunk' as const, value: new Uint8Array(10) } },
  ];
  for (const rejectsOnReturn of [false, true]) {
    let index = 0;
    const input: AsyncIterable<(typeof sent)[number]> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => (index < sent.length ? { done: false, value: sent[index++]! } : new Promise<never>(() => {})),
        return: async () => {
          if (rejectsOnReturn) throw Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
          return { done: true, value: undefined };
        },
      }),
    };
    t.like(
      await failureOf(assets.uploadAsset(input, auth)),
      { code: 'InvalidArgument', message: 'metadata: only the first message may carry metadata' },
      `return rejects: ${rejectsOnReturn}`,
    );
  }
});

test('list, delete and batch delete answer the same over both channels', async (t) => {
  const outcomes = [];
  for (const [name, transport] of Object.entries(channels)) {
    const assets = createClient(AssetService, transport);
    const auth = { headers: await headers(`lifecycle-${name}`) };
    const stored = [];
    for (let i = 0; i < 3; i++) {
      async function* messages() {
        yield { payload: { case: 'metadata' as const, value: { label: `n${i}` } } };
        yield { payload: { case: 'chunk' as const, value: new TextEncoder().encode(`file ${i}`) } };
      }
      stored.push(await assets.uploadAsset(messages(), auth));
    }
    const first = await assets.listAssets({ pageSize: 2 }, auth);
    const second = await assets.listAssets({ pageSize: 2, pageToken: first.nextPageToken }, auth);
    t.deepEqual(
      [...first.assets, ...second.assets].map((asset) => asset.id),
      stored.map((asset) => asset.id).reverse(),
      name,
    );
    t.is(second.nextPageToken, '', name);
    await assets.deleteAsset({ id: stored[0]!.id }, auth);
    const batch = await assets.batchDeleteAssets({ ids: [stored[1]!.id, stored[0]!.id, 'x'] }, auth);
    outcomes.push({
      labels: (await assets.listAssets({}, auth)).assets.map((asset) => asset.label),
      codes: batch.results.map((result) => result.code),
      // The message names the asset, which differs per channel; the rest must not.
      deletedAgain: { ...((await failureOf(assets.deleteAsset({ id: stored[0]!.id }, auth))) as object), message: 'asset … not found' },
      badPageSize: await failureOf(assets.listAssets({ pageSize: 1001 }, auth)),
      emptyBatch: await failureOf(assets.batchDeleteAssets({ ids: [] }, auth)),
    });
  }
  const [inProcess, grpc] = outcomes;
  t.deepEqual(inProcess, grpc);
  t.like(inProcess, {
    labels: ['n2'],
    codes: ['ok', 'not_found', 'invalid_argument'],
    deletedAgain: { code: 'NotFound' },
    badPageSize: { code: 'InvalidArgument' },
    emptyBatch: { code: 'InvalidArgument' },
  });
});

test('after close() the in-process channel refuses new calls as unavailable, like a stopped server', async (t) => {
  const own = await tempDir('in-process-close');
  t.teardown(() => own.remove());
  const other = await startTestService({
    dataDir: own.path,
    storage: { database: { kind: 'sqlite', file: join(own.path, 'db.sqlite') }, blobs: { kind: 'disk', root: join(own.path, 'files') } },
  });
  const routes = createClient(RouteService, other.handle.inProcess);
  await other.stop();
  t.like(await failureOf(routes.getRoute({ id: 'rt_00000000000000000000000000' })), { code: 'Unavailable' });
});
