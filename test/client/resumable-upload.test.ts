// resumableUpload against a real service and gateway: whole uploads from each
// kind of source, connections cut mid-append, an upload resumed by id, errors
// for good that are not retried, and an abort that leaves the upload resumable.
import { codeOf } from './support/codes.js';
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { AssetService, UploadService } from '@switchyard/proto';
import {
  Code,
  createSwitchyardClient,
  resumableUpload,
  type Protocol,
  type ResumableUploadClients,
  type SwitchyardClient,
} from '@switchyard/client';
import { sha256 } from '../rest/support/fixtures.js';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';
import { mintToken } from '../rest/support/tokens.js';
import { startCuttingProxy } from '../rest/support/tus.js';

const MiB = 1024 * 1024;

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(() => stack?.stop());

async function clientFor(protocol: Protocol, workspace: string, baseUrl?: string): Promise<SwitchyardClient> {
  return createSwitchyardClient({
    baseUrl: baseUrl ?? (protocol === 'grpc' ? `http://${stack.service.address}` : stack.url),
    protocol,
    token: await stack.token(workspace),
  });
}

/** gRPC clients that count the calls made, by method name. */
function countingClients(baseUrl: string, token: string): ResumableUploadClients & { calls: Map<string, number>; close(): void } {
  const calls = new Map<string, number>();
  const count: Interceptor = (next) => (request) => {
    calls.set(request.method.name, (calls.get(request.method.name) ?? 0) + 1);
    request.header.set('authorization', `Bearer ${token}`);
    return next(request);
  };
  const sessionManager = new Http2SessionManager(baseUrl);
  const transport = createGrpcTransport({ baseUrl, sessionManager, interceptors: [count] });
  return {
    uploads: createClient(UploadService, transport),
    assets: createClient(AssetService, transport),
    calls,
    close: () => sessionManager.abort(),
  };
}

/** `bytes` as a Node stream of 64 KiB chunks, read once, its size unknown to the helper. */
const streamOf = (bytes: Buffer): Readable =>
  Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += 64 * 1024) yield bytes.subarray(at, at + 64 * 1024);
    })(),
  );

for (const protocol of ['grpc', 'connect'] as const) {
  test(`${protocol}: a path, a Node stream, a Blob and bytes upload whole, in appends of chunkBytes; replace keeps the id`, async (t) => {
    const workspace = freshWorkspace('resumable');
    const client = await clientFor(protocol, workspace);
    t.teardown(() => client.close());
    const file = randomBytes(5 * MiB + 123);
    const path = join(stack.dataDir, `resumable-${protocol}.bin`);
    await writeFile(path, file);
    // A stream whose end falls exactly on an append's: the last append must still declare the length.
    const even = file.subarray(0, 4 * MiB);
    const sources = {
      path: [path, file],
      stream: [streamOf(even), even],
      blob: [new Blob([file]), file],
      bytes: [new Uint8Array(file), file],
    } as const;
    for (const [kind, [source, bytes]] of Object.entries(sources)) {
      const progress: [number, number | undefined][] = [];
      const asset = await resumableUpload(client, source, {
        label: kind,
        filename: `${kind}.bin`,
        chunkBytes: MiB,
        onProgress: (committed, total) => progress.push([committed, total]),
      });
      t.is(asset.sha256, sha256(bytes), kind);
      t.is(asset.size, BigInt(bytes.length), kind);
      t.is(asset.label, kind);
      // One report per append of 1 MiB (and one at the start): the bytes went in appends, not in one call.
      t.is(progress.length, Math.ceil(bytes.length / MiB) + 1, kind);
      t.deepEqual(progress.at(-1), [bytes.length, bytes.length], kind);
      if (kind !== 'stream')
        t.true(
          progress.every(([, total]) => total === bytes.length),
          `${kind}: the size was known from the start`,
        );
    }
    const original = await resumableUpload(client, new Uint8Array(file.subarray(0, 1000)), { label: 'to replace' });
    const replaced = await resumableUpload(client, new Uint8Array(even), { replace: original.id, chunkBytes: MiB });
    t.is(replaced.id, original.id);
    t.is(replaced.sha256, sha256(even));
    t.is(replaced.label, 'to replace');
  });
}

for (const kind of ['path', 'stream'] as const) {
  test(`grpc: a ${kind} whose connection is cut twice mid-append resumes from the committed offset; the sha256 matches`, async (t) => {
    const workspace = freshWorkspace('resumable-cut');
    const file = randomBytes(6 * MiB);
    const path = join(stack.dataDir, `cut-${kind}.bin`);
    await writeFile(path, file);
    const proxy = await startCuttingProxy(`http://${stack.service.address}`, [1.5 * MiB, 3.7 * MiB]);
    t.teardown(() => proxy.close());
    const client = await clientFor('grpc', workspace, proxy.url);
    t.teardown(() => client.close());
    const asset = await resumableUpload(client, kind === 'path' ? path : streamOf(file), { label: 'cut', chunkBytes: MiB });
    t.is(proxy.cuts(), 2, 'the connection was cut twice');
    t.is(asset.sha256, sha256(file));
    t.is(asset.label, 'cut');
    // Starting over would send 1.5 + 3.7 + 6 MiB; resuming sends again at most the two appends that were cut.
    t.true(proxy.sent() < file.length + 2 * MiB + 64 * 1024, `${proxy.sent()} bytes sent for a file of ${file.length}`);
  });
}

/** A TCP proxy to the service that can go down (its connections dropped, its port closed) and come back on the same port: a restart as the client sees it. */
async function restartableProxy(
  target: string,
): Promise<{ url: string; connections(): number; down(): Promise<void>; up(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let connections = 0;
  let server: Server | undefined;
  let listenPort = 0;
  const up = async (): Promise<void> => {
    server = createServer((client) => {
      connections++;
      const upstream = connect(Number(port), hostname);
      for (const socket of [client, upstream])
        sockets.add(socket).add(socket.on('close', () => sockets.delete(socket)).on('error', () => undefined));
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.listen(listenPort, '127.0.0.1');
    await once(server, 'listening');
    listenPort = (server.address() as { port: number }).port;
  };
  const down = async (): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
  };
  await up();
  return { url: `http://127.0.0.1:${listenPort}`, connections: () => connections, down, up };
}

test('grpc: the service going away for a second and a half mid-upload (connection refused meanwhile) is waited out with backoff', async (t) => {
  const workspace = freshWorkspace('resumable-restart');
  const file = randomBytes(6 * MiB);
  const proxy = await restartableProxy(`http://${stack.service.address}`);
  t.teardown(() => proxy.down());
  const client = await clientFor('grpc', workspace, proxy.url);
  t.teardown(() => client.close());
  let back: Promise<void> | undefined;
  const asset = await resumableUpload(client, new Uint8Array(file), {
    chunkBytes: MiB,
    onProgress: (committed) => {
      if (committed !== 2 * MiB) return;
      back = proxy
        .down()
        .then(() => new Promise((resolve) => setTimeout(resolve, 1_500)))
        .then(() => proxy.up());
    },
  });
  await back;
  t.is(asset.sha256, sha256(file));
  t.true(proxy.connections() >= 2, 'the client connected again after the restart');
});

test('grpc: an upload begun elsewhere is resumed by uploadId from its offset, with a path or a stream of the whole file', async (t) => {
  const workspace = freshWorkspace('resumable-id');
  const client = await clientFor('grpc', workspace);
  t.teardown(() => client.close());
  const file = randomBytes(3 * MiB + 10);
  const path = join(stack.dataDir, 'by-id.bin');
  await writeFile(path, file);
  for (const kind of ['path', 'stream'] as const) {
    // Another process created the upload and appended its first 2 MiB.
    const begun = await client.uploads.createUpload({ length: BigInt(file.length), label: `begun elsewhere (${kind})` });
    async function* firstTwoMiB() {
      yield { payload: { case: 'metadata' as const, value: { id: begun.id, offset: 0n } } };
      for (let at = 0; at < 2 * MiB; at += 256 * 1024)
        yield { payload: { case: 'chunk' as const, value: file.subarray(at, at + 256 * 1024) } };
    }
    t.is((await client.uploads.appendUpload(firstTwoMiB())).offset, BigInt(2 * MiB));

    const progress: number[] = [];
    const ids: string[] = [];
    const asset = await resumableUpload(client, kind === 'path' ? path : streamOf(file), {
      uploadId: begun.id,
      label: 'ignored: set at creation',
      chunkBytes: MiB,
      onUploadId: (id) => ids.push(id),
      onProgress: (committed) => progress.push(committed),
    });
    t.deepEqual(ids, [begun.id], kind);
    t.deepEqual(progress, [2 * MiB, 3 * MiB, file.length], `${kind}: went on from the upload's offset`);
    t.is(asset.sha256, sha256(file), kind);
    t.is(asset.label, `begun elsewhere (${kind})`);
    t.is((await client.uploads.getUpload({ id: begun.id })).assetId, asset.id, kind);
  }
  // The wrong file for the upload is refused before a byte is sent.
  const other = await client.uploads.createUpload({ length: 10n });
  await t.throwsAsync(resumableUpload(client, new Uint8Array(11), { uploadId: other.id }), {
    instanceOf: RangeError,
    message: /10 bytes long, but the source is 11/,
  });
  t.is((await client.uploads.getUpload({ id: other.id })).offset, 0n);
});

test('grpc: two helpers racing on one uploadId both end with its asset: an offset conflict or a busy upload is asked again, not fatal', async (t) => {
  const workspace = freshWorkspace('resumable-race');
  const client = await clientFor('grpc', workspace);
  t.teardown(() => client.close());
  const file = randomBytes(6 * MiB);
  const { id } = await client.uploads.createUpload({ length: BigInt(file.length) });
  const [first, second] = await Promise.all(
    [0, 1].map(() => resumableUpload(client, new Uint8Array(file), { uploadId: id, chunkBytes: MiB })),
  );
  t.is(first!.id, second!.id);
  t.is(first!.sha256, sha256(file));
});

test('grpc: errors for good fail at once, without a retry: a wrong token, a type the workspace policy refuses, an unknown replace id', async (t) => {
  const workspace = freshWorkspace('resumable-refused');
  const address = `http://${stack.service.address}`;

  // Signed with another secret than the service's.
  const forged = countingClients(address, await mintToken(randomBytes(32).toString('base64url'), { workspace }));
  t.teardown(() => forged.close());
  t.is(await codeOf(resumableUpload(forged, new Uint8Array(10), { retries: 5 })), Code.Unauthenticated);
  t.deepEqual([...forged.calls], [['CreateUpload', 1]]);

  const client = countingClients(address, await stack.token(workspace));
  t.teardown(() => client.close());
  await client.assets.setWorkspacePolicy({ allowedTypes: ['image/png'] });
  client.calls.clear();
  // Random bytes sniff as application/octet-stream: refused once the last byte is in (the upload is removed).
  t.is(await codeOf(resumableUpload(client, randomBytes(3 * MiB), { chunkBytes: MiB, retries: 5 })), Code.InvalidArgument);
  // No backoff either: the client only waits right before trying again, and any retry reads the
  // upload's offset first (a GetUpload), which the counts would show. (A wall-clock bound here
  // failed CI on a loaded machine and proved nothing the counts do not.)
  t.deepEqual(Object.fromEntries(client.calls), { CreateUpload: 1, AppendUpload: 3 });

  client.calls.clear();
  const unread = streamOf(randomBytes(10));
  t.is(await codeOf(resumableUpload(client, unread, { replace: 'as_00000000000000000000000000', retries: 5 })), Code.NotFound);
  t.deepEqual(Object.fromEntries(client.calls), { CreateUpload: 1 });
  t.true(unread.destroyed, 'the stream it did not get to read is ended, as a pipeline would');
});

test('grpc: an abort mid-append rejects with Canceled and leaves the upload resumable: GetUpload reads its offset, uploadId finishes it', async (t) => {
  const workspace = freshWorkspace('resumable-abort');
  const file = randomBytes(10 * MiB);
  // A proxy that cuts nothing, to see the bytes go by.
  const proxy = await startCuttingProxy(`http://${stack.service.address}`, []);
  t.teardown(() => proxy.close());
  const client = await clientFor('grpc', workspace, proxy.url);
  t.teardown(() => client.close());

  const controller = new AbortController();
  let uploadId = '';
  const committed: number[] = [];
  const aborted = resumableUpload(client, new Uint8Array(file), {
    chunkBytes: 4 * MiB,
    signal: controller.signal,
    onUploadId: (id) => (uploadId = id),
    onProgress: (bytes) => committed.push(bytes),
  });
  // Abort 1 MiB into the second append, 3 MiB before its end.
  while (proxy.sent() < 5 * MiB) await new Promise((resolve) => setTimeout(resolve, 1));
  controller.abort();
  t.is(await codeOf(aborted), Code.Canceled);
  t.deepEqual(committed, [0, 4 * MiB], 'the first append was committed, the second was not answered');

  const left = await client.uploads.getUpload({ id: uploadId });
  t.is(left.assetId, '');
  t.true(left.offset >= BigInt(4 * MiB) && left.offset < BigInt(8 * MiB), `left at ${left.offset}`);
  const resumed: number[] = [];
  const asset = await resumableUpload(client, new Uint8Array(file), {
    uploadId,
    chunkBytes: 4 * MiB,
    onProgress: (bytes) => resumed.push(bytes),
  });
  t.is(resumed[0], Number(left.offset));
  t.is(asset.sha256, sha256(file));
});

test('an aborted signal rejects with Canceled; bad options, a directory and a failing stream are refused at once', async (t) => {
  const client = countingClients(`http://${stack.service.address}`, await stack.token(freshWorkspace('resumable-options')));
  t.teardown(() => client.close());
  t.is(await codeOf(resumableUpload(client, new Uint8Array(10), { signal: AbortSignal.abort() })), Code.Canceled);
  await t.throwsAsync(resumableUpload(client, new Uint8Array(10), { chunkBytes: 0 }), { instanceOf: RangeError });
  await t.throwsAsync(resumableUpload(client, new Uint8Array(10), { retries: -1 }), { instanceOf: RangeError });
  await t.throwsAsync(resumableUpload(client, stack.dataDir), { instanceOf: TypeError, message: /is not a file/ });

  // A source that fails is no passing trouble: its error, at once, and no GetUpload.
  client.calls.clear();
  const failing = Readable.from(
    (async function* () {
      yield Buffer.alloc(1000);
      throw new Error('the disk is on fire');
    })(),
  );
  await t.throwsAsync(resumableUpload(client, failing, { retries: 5 }), { message: 'the disk is on fire' });
  t.deepEqual(Object.fromEntries(client.calls), { CreateUpload: 1 });
});
