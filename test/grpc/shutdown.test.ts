// Graceful shutdown: calls in flight finish, new calls are refused, storage is closed.
import test from 'ava';
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { chunksOf, GrpcClients } from './support/clients.js';
import { noise, sha256 } from './support/fixtures.js';
import { blobKeys, sqliteDiskTarget } from './support/storage-targets.js';
import { startTestService } from './support/test-service.js';

test('close() lets an upload in flight finish, refuses new calls, then stops', async (t) => {
  const target = await sqliteDiskTarget();
  t.teardown(() => target.cleanup());
  const svc = await startTestService({ storage: target.storage, dataDir: target.dataDir });
  const bytes = noise(512 * 1024, 5);
  const chunks = [...chunksOf(bytes)];

  const { stream, result } = svc.clients.startUpload(await svc.auth('shutdown'));
  stream.write({ metadata: { label: 'in flight', filename: '', declaredType: '', visibility: '' } });
  stream.write({ chunk: chunks[0]! });
  await new Promise((resolve) => stream.once('metadata', resolve)); // the server has the call

  const closing = svc.handle.close();
  t.is(svc.handle.close(), closing, 'close is idempotent');

  // A new connection is refused while the old call is still running.
  const late = new GrpcClients(svc.handle.address);
  const refused = await t.throwsAsync<ServiceError>(late.getAsset(await svc.auth('shutdown'), 'as_00000000000000000000000000'));
  t.is(Status[refused.code], 'UNAVAILABLE');
  late.close();

  for (const chunk of chunks.slice(1)) stream.write({ chunk });
  stream.end();
  const asset = await result;
  t.is(asset.size, bytes.length);
  t.is(asset.sha256, sha256(bytes));
  await closing;
  svc.clients.close();

  // The finished upload is really stored, with its blob.
  t.is((await target.snapshot()).blobKeys.length, 1);
  t.deepEqual(await blobKeys(target.storage), (await target.snapshot()).blobKeys);
});

test('calls still running at the shutdown deadline are cut off, and close still resolves', async (t) => {
  const target = await sqliteDiskTarget();
  t.teardown(() => target.cleanup());
  const svc = await startTestService({ storage: target.storage, dataDir: target.dataDir, serviceOptions: { shutdownTimeoutMs: 100 } });
  const { stream, result } = svc.clients.startUpload(await svc.auth('stalled'));
  stream.write({ metadata: { label: '', filename: '', declaredType: '', visibility: '' } });
  stream.write({ chunk: Buffer.from('never finished') });
  await new Promise((resolve) => stream.once('metadata', resolve));
  await svc.handle.close(); // the client never ends its stream
  const error = await t.throwsAsync<ServiceError>(result);
  t.true(['UNAVAILABLE', 'CANCELLED', 'INTERNAL'].includes(Status[error.code] ?? ''), Status[error.code]);
  svc.clients.close();
  const snapshot = await target.snapshot();
  t.deepEqual(snapshot.blobKeys, [], 'the cut-off upload left no blob');
  t.deepEqual(snapshot.files, [], 'nor a temp file');
  t.is(snapshot.assetRows, 0, 'nor a record');
});
