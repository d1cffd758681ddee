// UploadService over real gRPC: the calls behind tus, including a cancelled append that keeps what arrived.
import test from 'ava';
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { randomBytes } from 'node:crypto';
import { CreateUploadRequest, UploadServiceClient, type Upload } from '@switchyard/service/gen/switchyard/v1/uploads.js';
import { AssetServiceClient, type Asset } from '@switchyard/service/gen/switchyard/v1/assets.js';
import { sqliteDiskTarget, type StorageTarget } from './support/storage-targets.js';
import { startTestService, type TestService } from './support/test-service.js';
import { createHash } from 'node:crypto';
import { eventually } from '../support/eventually.js';

let target: StorageTarget;
let svc: TestService;
let uploads: UploadServiceClient;
let assets: AssetServiceClient;

test.before(async () => {
  target = await sqliteDiskTarget();
  svc = await startTestService({ storage: target.storage, dataDir: target.dataDir });
  uploads = new UploadServiceClient(svc.handle.address, credentials.createInsecure());
  assets = new AssetServiceClient(svc.handle.address, credentials.createInsecure());
});
test.after.always(async () => {
  uploads?.close();
  assets?.close();
  await svc?.stop();
  await target?.cleanup();
});

type Metadata = import('@grpc/grpc-js').Metadata;
const settle = <T>(start: (callback: (error: ServiceError | null, value?: T) => void) => unknown): Promise<T> =>
  new Promise((resolve, reject) => void start((error, value) => (error ? reject(error) : resolve(value as T))));
const createUpload = (request: Partial<CreateUploadRequest>, metadata: Metadata): Promise<Upload> =>
  settle((callback) => uploads.createUpload(CreateUploadRequest.fromPartial(request), metadata, callback));
const getUpload = (id: string, metadata: Metadata): Promise<Upload> => settle((callback) => uploads.getUpload({ id }, metadata, callback));
const terminateUpload = (id: string, metadata: Metadata): Promise<unknown> =>
  settle((callback) => uploads.terminateUpload({ id }, metadata, callback));
const getAsset = (id: string, metadata: Metadata): Promise<Asset> => settle((callback) => assets.getAsset({ id }, metadata, callback));

const codeOf = async (promise: Promise<unknown>): Promise<number> =>
  promise.then(
    () => status.OK,
    (error: ServiceError) => error.code,
  );

test('create, append in two streams, the asset appears; get names it', async (t) => {
  const auth = await svc.auth('ws-grpc-up');
  const file = randomBytes(300_000);
  const created = await createUpload({ length: file.length, filename: 'a.bin', label: 'over grpc' }, auth);
  t.regex(created.id, /^up_/);
  const append = (offset: number, bytes: Buffer): Promise<Upload> =>
    new Promise((resolve, reject) => {
      const stream = uploads.appendUpload(auth, (error, value) => (error ? reject(error) : resolve(value)));
      stream.write({ metadata: { id: created.id, offset, checksumAlgorithm: '', checksum: Buffer.alloc(0) } });
      for (let at = 0; at < bytes.length; at += 64 * 1024) stream.write({ chunk: bytes.subarray(at, at + 64 * 1024) });
      stream.end();
    });
  t.is((await append(0, file.subarray(0, 100_000))).offset, 100_000);
  const done = await append(100_000, file.subarray(100_000));
  t.regex(done.assetId, /^as_/);
  const asset = await getAsset(done.assetId, auth);
  t.is(asset.sha256, createHash('sha256').update(file).digest('hex'));
  t.is(asset.label, 'over grpc');
  t.is(asset.name, 'a.bin', 'the filename is the name');
  t.is((await getUpload(created.id, auth)).assetId, done.assetId);
});

test('a cancelled append keeps the bytes the service received', async (t) => {
  const auth = await svc.auth('ws-grpc-up');
  // Cancels 200,000 bytes in, once the service has had time to authenticate, take the lease and
  // read them; answers the offset the upload keeps.
  const cancelledAppend = async (readingMs: number): Promise<number> => {
    const created = await createUpload({ length: 1_000_000 }, auth);
    const stream = uploads.appendUpload(auth, () => undefined);
    stream.write({ metadata: { id: created.id, offset: 0, checksumAlgorithm: '', checksum: Buffer.alloc(0) } });
    await new Promise<void>((resolve) => stream.write({ chunk: randomBytes(200_000) }, () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, readingMs));
    stream.cancel();
    // The service records the bytes once it sees the cancel; 0 after the deadline means it kept none.
    return eventually(async () => (await getUpload(created.id, auth)).offset, { timeout: 5_000, interval: 100 }).catch(() => 0);
  };
  // Nothing tells the client when the service has read the bytes, so a loaded machine may cancel
  // before it did (and then 0 is right): a fresh upload tries again with more time. Lost bytes
  // would read 0 every time.
  let offset = 0;
  for (const readingMs of [1_000, 3_000, 8_000]) {
    offset = await cancelledAppend(readingMs);
    if (offset !== 0) break;
  }
  t.is(offset, 200_000);
});

test('refusals: an unknown checksum algorithm, a stale offset, another workspace, a missing scope, a terminated upload', async (t) => {
  const auth = await svc.auth('ws-grpc-up');
  const created = await createUpload({ length: 10 }, auth);
  const appendCode = (metadata: object): Promise<number> =>
    codeOf(
      new Promise((resolve, reject) => {
        const stream = uploads.appendUpload(auth, (error, value) => (error ? reject(error) : resolve(value)));
        stream.write({ metadata: { id: created.id, checksumAlgorithm: '', checksum: Buffer.alloc(0), offset: 0, ...metadata } });
        stream.write({ chunk: Buffer.alloc(5) });
        stream.end();
      }),
    );
  t.is(await appendCode({ checksumAlgorithm: 'md5', checksum: Buffer.alloc(16) }), status.INVALID_ARGUMENT);
  t.is(await appendCode({ offset: 3 }), status.ABORTED);
  t.is(await codeOf(getUpload(created.id, await svc.auth('ws-other'))), status.NOT_FOUND);
  t.is(await codeOf(getUpload(created.id, await svc.auth('ws-grpc-up', { scope: 'assets:read' }))), status.PERMISSION_DENIED);
  t.is(await codeOf(createUpload({ partial: true, finalOf: [created.id] }, auth)), status.INVALID_ARGUMENT);
  await terminateUpload(created.id, auth);
  t.is(await codeOf(getUpload(created.id, auth)), status.NOT_FOUND);
});
