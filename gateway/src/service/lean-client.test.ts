// The lean server-streaming calls against Connect's own client, on a real
// grpc-js server over Connect's gRPC transport: the same messages, errors and
// metadata; and over the service's in-process channel, a reader that stops
// early ends the call.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Metadata, Server, ServerCredentials, status, type ServerWritableStream } from '@grpc/grpc-js';
import { ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { AssetService, FileService, type ReadFileResponse as ReadFileMessage } from '@switchyard/proto';
import { signToken } from '@switchyard/core';
import { eventually } from '@switchyard/core/testing';
import { createServiceLogger, loadServiceConfig, startService } from '@switchyard/service';
import { FileServiceService, type ReadFileRequest, type ReadFileResponse } from '@switchyard/service/gen/switchyard/v1/files.js';
import { createLeanClient } from './lean-client.js';

/** What the test server does, by requested path. */
function readFile(call: ServerWritableStream<ReadFileRequest, ReadFileResponse>): void {
  const header = new Metadata();
  header.set('x-request-id', String(call.metadata.get('x-request-id')[0] ?? ''));
  call.sendMetadata(header);
  const path = call.request.path;
  if (path === 'missing') return void call.emit('error', { code: status.NOT_FOUND, details: 'no file at missing' });
  call.write({ chunk: Buffer.from('one') });
  call.write({ chunk: Buffer.from('two') });
  const trailer = new Metadata();
  trailer.set('x-done', path);
  call.end(trailer);
}

const server = new Server();
server.addService(FileServiceService, { readFile });
const port = await new Promise<number>((resolve, reject) =>
  server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
);
const sessionManager = new Http2SessionManager(`http://127.0.0.1:${port}`);
const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}`, sessionManager });
const connect = createClient(FileService, transport);
const lean = createLeanClient(FileService, transport);
test.after.always(() => {
  sessionManager.abort();
  server.forceShutdown();
});

/** Every message's chunk as text, the headers and trailers seen, or the error. */
async function outcome(
  messages: (options: { onHeader(h: Headers): void; onTrailer(t: Headers): void }) => AsyncIterable<ReadFileMessage>,
): Promise<unknown> {
  const seen: Record<string, unknown> = {};
  const chunks: string[] = [];
  try {
    for await (const message of messages({
      onHeader: (h) => (seen['requestId'] = h.get('x-request-id')),
      onTrailer: (t) => (seen['done'] = t.get('x-done')),
    })) {
      chunks.push(message.payload.case === 'chunk' ? Buffer.from(message.payload.value).toString() : String(message.payload.case));
    }
  } catch (error) {
    const failure = ConnectError.from(error);
    return { code: failure.code, message: failure.rawMessage, ...seen };
  }
  return { chunks, ...seen };
}

for (const path of ['file', 'missing']) {
  test(`${path}: the same messages, headers, trailers and errors as Connect's client`, async (t) => {
    const headers = { 'x-request-id': `req-${path}` };
    const expected = await outcome((hooks) => connect.readFile({ path }, { headers, ...hooks }));
    t.deepEqual(await outcome((hooks) => lean.readFile({ path }, { headers, ...hooks })), expected);
    if (path === 'file') t.deepEqual(expected, { chunks: ['one', 'two'], requestId: 'req-file', done: 'file' });
    else t.like(expected, { message: 'no file at missing' });
  });
}

test('in-process (npm start): a reader that stops after the first message ends the call, and the service lets the handler go', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-lean-client-'));
  const secret = 'lean-client-test-secret-'.padEnd(40, 'x');
  const lines: Record<string, unknown>[] = [];
  const logger = createServiceLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const config = loadServiceConfig({ DATA_DIR: dir, AUTH_SECRET: secret, GRPC_PORT: '0', CDN_URL: 'http://127.0.0.1:1/files' });
  const service = await startService(config, { logger });
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  try {
    const headers = { authorization: `Bearer ${await signToken(secret, { workspace: 'lean' })}` };
    async function* upload() {
      yield { payload: { case: 'metadata' as const, value: { label: 'streamed in many messages' } } };
      // Past the file cache's small files: read from the store in 64 KiB messages.
      for (let i = 0; i < 4; i++) yield { payload: { case: 'chunk' as const, value: new Uint8Array(1024 * 1024) } };
    }
    const asset = await createClient(AssetService, service.inProcess).uploadAsset(upload(), { headers });
    const path = new URL(asset.url).pathname.split('/').slice(-2).join('/');
    const files = createLeanClient(FileService, service.inProcess);
    let read = 0;
    for await (const message of files.readFile({ path }, { headers: { 'x-request-id': 'stops-early' } })) {
      read += 1;
      t.is(message.payload.case, 'info');
      break;
    }
    t.is(read, 1);
    // The handler ends (its one log line) once the reader has gone; left running, it would wait for a reader forever.
    const ended = (): boolean =>
      lines.some((line) => line['msg'] === 'call' && line['method'] === 'ReadFile' && line['requestId'] === 'stops-early');
    await eventually(ended, { timeout: 10_000, message: 'the ReadFile handler ended' });
  } finally {
    await service.close();
  }
});
