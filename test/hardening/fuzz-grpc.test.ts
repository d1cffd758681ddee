// Property-based fuzzing of the gRPC service itself (no gateway in between): messages with hostile
// field values, bytes that are not protobuf (sent with a pass-through serializer), broken upload
// streams (chunk before metadata, two metadata, empty stream, a chunk after the trailing label,
// undecodable messages mid-stream; uploads and resumable appends alike) and hostile metadata. Properties: never UNKNOWN, INTERNAL or
// DATA_LOSS, nothing logged as an error, the service still SERVING, the heap back near its baseline.
import { create, toBinary } from '@bufbuild/protobuf';
import { Client, credentials, Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { AppendUploadRequestSchema } from '@switchyard/proto';
import test from 'ava';
import fc from 'fast-check';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';
import { GrpcClients } from '../grpc/support/clients.js';
import { failureReport } from './support/fuzz-report.js';
import { deltaMib, memoryAfterGc, mib } from './support/heap.js';
import { mangled, rpcs, type Rpc } from './support/hostile-connect.js';
import type { Targets } from './support/hostile-http.js';
import { seedTargets } from './support/seed-targets.js';
import { scaled } from './support/soak.js';

const CALLS = scaled(1_000, 10_000);
const BATCH = 10;
const HEAP_TOLERANCE = 24 * 2 ** 20;
/** Codes that mean the server failed, never the client. */
const SERVER_FAULTS = new Set<number>([Status.UNKNOWN, Status.INTERNAL, Status.DATA_LOSS]);

let stack: Stack;
let targets: Targets;
let raw: Client;

test.before(async () => {
  stack = await startStack({ RATE_LIMIT_PER_SECOND: '0', MAX_UPLOAD_BYTES: String(64 * 1024) });
  targets = await seedTargets(stack, 'grpc-fuzz', '/seed');
  raw = new Client(stack.service.address, credentials.createInsecure());
});
test.after.always(async () => {
  raw?.close();
  await stack?.stop();
});

interface Call {
  readonly rpc: Rpc;
  /** One message for unary and server-streaming calls; the stream's messages otherwise. */
  readonly messages: readonly Buffer[];
  readonly metadata: readonly (readonly [string, string])[];
}

const pass = (bytes: Buffer): Buffer => bytes;

const metadataArb = (authorization: string): fc.Arbitrary<[string, string][]> =>
  fc
    .tuple(
      fc.constantFrom<[string, string][]>(
        ...Array.from({ length: 7 }, (): [string, string][] => [['authorization', authorization]]),
        [],
        [['authorization', 'Bearer garbage']],
        [['authorization', `${authorization} ${authorization}`]],
      ),
      fc.constantFrom<[string, string][]>(
        [],
        [],
        [['x-request-id', 'a'.repeat(5_000)]],
        [['x-request-id', '../../\\x00']],
        [['x-pad', 'p'.repeat(12_000)]],
        [['grpc-timeout', '1H']],
        [['content-type', 'application/grpc+json']],
        Array.from({ length: 100 }, (_, i) => [`x-m${i}`, 'v'] as [string, string]),
      ),
    )
    .map(([auth, extra]) => [...auth, ...extra]);

function callArb(): fc.Arbitrary<Call> {
  return fc.constantFrom(...rpcs(targets)).chain((rpc) => {
    const messages: fc.Arbitrary<Buffer[]> = rpc.streaming
      ? fc
          .tuple(rpc.message, fc.nat(), fc.option(mangled(fc.constant<Buffer>(Buffer.from([0x0a, 0x02, 0x61, 0x62]))), { nil: undefined }))
          .map(([list, at, garbage]) => {
            const decoded = (JSON.parse(list.toString()) as string[]).map((m): Buffer => Buffer.from(m, 'base64'));
            // Sometimes a message that is not protobuf, anywhere in the stream.
            if (garbage !== undefined) decoded.splice(at % (decoded.length + 1), 0, garbage);
            return decoded;
          })
      : fc.oneof(rpc.message, rpc.message, mangled(rpc.message)).map((m) => [m]);
    return fc.record({ rpc: fc.constant(rpc), messages, metadata: metadataArb(targets.authorization) });
  });
}

function describeCall(call: Call): string {
  const bytes = call.messages
    .map((m) => JSON.stringify(m.subarray(0, 80).toString('latin1')) + (m.length > 80 ? `…(${m.length} B)` : ''))
    .join(', ');
  return `${call.rpc.path} [${bytes}] metadata ${call.metadata.map(([k, v]) => `${k}=${v.slice(0, 40)}${v.length > 40 ? '…' : ''}`).join(' ')}`;
}

/** Runs one call with raw bytes both ways; resolves with its status code. */
function run(call: Call): Promise<{ code: number; details: string }> {
  const metadata = new Metadata();
  for (const [key, value] of call.metadata) metadata.add(key, value);
  return new Promise((resolve) => {
    const done = (error: ServiceError | null): void =>
      resolve(error ? { code: error.code, details: error.details } : { code: Status.OK, details: '' });
    if (call.rpc.endless) {
      // A watch: its first message means the call was let in; then the client leaves.
      const stream = raw.makeServerStreamRequest(call.rpc.path, pass, pass, call.messages[0]!, metadata, {});
      let started = false;
      stream.on('data', () => {
        started = true;
        stream.cancel();
      });
      stream.on('error', (error: ServiceError) => done(started && error.code === Status.CANCELLED ? null : error));
      stream.on('end', () => setImmediate(() => done(null)));
      return;
    }
    if (call.rpc.path.endsWith('/ReadFile')) {
      const stream = raw.makeServerStreamRequest(call.rpc.path, pass, pass, call.messages[0]!, metadata, {});
      stream.on('data', () => undefined);
      stream.on('error', (error: ServiceError) => done(error));
      stream.on('end', () => setImmediate(() => done(null)));
      return;
    }
    if (!call.rpc.streaming) {
      raw.makeUnaryRequest(call.rpc.path, pass, pass, call.messages[0]!, metadata, {}, (error) => done(error));
      return;
    }
    const stream = raw.makeClientStreamRequest(call.rpc.path, pass, pass, metadata, {}, (error) => done(error));
    stream.on('error', () => undefined);
    for (const message of call.messages) stream.write(message);
    stream.end();
  });
}

function takeErrorLines(): string[] {
  const bad = stack.serviceLogLines.filter((line) => /"level":(5|6)0\b/.test(line));
  stack.serviceLogLines.length = 0;
  stack.logLines.length = 0;
  return bad;
}

test.serial(
  `${CALLS} hostile gRPC calls: never UNKNOWN, INTERNAL or DATA_LOSS, no error logged, still SERVING, memory back to baseline`,
  async (t) => {
    t.timeout(scaled(120_000, 1_800_000));
    const arbitrary = callArb();
    await Promise.all(fc.sample(arbitrary, { numRuns: 50, seed: 1 }).map(run));
    takeErrorLines();
    const before = await memoryAfterGc();

    const codes = new Map<string, number>();
    let sent = 0;
    const started = performance.now();
    const outcome = await fc.check(
      fc.asyncProperty(fc.array(arbitrary, { minLength: BATCH, maxLength: BATCH }), async (calls) => {
        const results = await Promise.all(calls.map(async (call) => ({ call, result: await run(call) })));
        sent += calls.length;
        const problems: string[] = [];
        for (const { call, result } of results) {
          codes.set(Status[result.code] ?? String(result.code), (codes.get(Status[result.code] ?? String(result.code)) ?? 0) + 1);
          if (SERVER_FAULTS.has(result.code)) problems.push(`${Status[result.code]} (${result.details})\n  call: ${describeCall(call)}`);
        }
        const errors = takeErrorLines();
        if (errors.length > 0)
          problems.push(
            `logged as errors:\n${errors
              .slice(0, 3)
              .map((line) => line.slice(0, 1500))
              .join('\n')}\n  batch: ${calls.map(describeCall).join('\n         ')}`,
          );
        if (problems.length > 0) throw new Error(problems.join('\n'));
      }),
      { numRuns: Math.ceil(CALLS / BATCH), ...(process.env['FUZZ_SEED'] ? { seed: Number(process.env['FUZZ_SEED']) } : {}) },
    );
    const elapsedMs = Math.round(performance.now() - started);
    if (outcome.failed) return void t.fail(failureReport(outcome));

    const clients = new GrpcClients(stack.service.address);
    try {
      t.is(await clients.healthCheck(''), 'SERVING', 'the service is still serving');
    } finally {
      clients.close();
    }
    const after = await memoryAfterGc();
    const grown = after.heapUsed - before.heapUsed;
    t.log(
      `${sent} calls in ${elapsedMs} ms; codes ${[...codes]
        .sort(([, a], [, b]) => b - a)
        .map(([code, n]) => `${code}×${n}`)
        .join(' ')}`,
    );
    t.log(
      `heap after GC ${mib(before.heapUsed)} → ${mib(after.heapUsed)} (${deltaMib(grown)}); rss ${mib(before.rss)} → ${mib(after.rss)}`,
    );
    t.true(grown < HEAP_TOLERANCE, `heap grew ${deltaMib(grown)}`);
  },
);

test('broken upload streams and undecodable bytes are INVALID_ARGUMENT, named case by case', async (t) => {
  const rpcOf = (name: string): Rpc => rpcs(targets).find((rpc) => rpc.path.endsWith(`/${name}`))!;
  const upload = rpcOf('UploadAsset');
  const replace = rpcOf('ReplaceAsset');
  const meta = Buffer.from([0x0a, 0x00]); // UploadAssetRequest{metadata: {}}
  const chunk = Buffer.from([0x12, 0x02, 0x68, 0x69]); // UploadAssetRequest{chunk: "hi"}
  const label = Buffer.from([0x1a, 0x01, 0x78]); // UploadAssetRequest{trailing_label: "x"}
  const garbage = Buffer.from([0xff, 0xff, 0xff]);
  const auth: [string, string][] = [['authorization', targets.authorization]];
  const cases: [string, Rpc, Buffer[]][] = [
    ['an empty stream', upload, []],
    ['a chunk before the metadata', upload, [chunk, meta]],
    ['two metadata messages', upload, [meta, chunk, meta]],
    ['a chunk after the trailing label', upload, [meta, label, chunk]],
    ['a first message that is not protobuf', upload, [garbage]],
    ['a message that is not protobuf mid-stream', upload, [meta, chunk, garbage, chunk]],
    ['a replace whose metadata is not protobuf', replace, [garbage, chunk]],
  ];
  for (const [name, rpc, messages] of cases) {
    const { code, details } = await run({ rpc, messages, metadata: auth });
    t.is(Status[code], 'INVALID_ARGUMENT', `${name}: ${details}`);
  }
  // Appends to a fresh upload of a fresh workspace (the fuzzer may have ended or moved the seeded upload, or set a tiny size limit).
  const owner = (await stack.auth(freshWorkspace('append'))).authorization!;
  const append = rpcOf('AppendUpload');
  const created = await fetch(`${stack.url}/v1/uploads`, {
    method: 'POST',
    headers: { authorization: owner, 'tus-resumable': '1.0.0', 'upload-length': '100' },
  });
  t.is(created.status, 201, await created.clone().text());
  const uploadId = created.headers.get('location')!.split('/').pop()!;
  const appendMeta = Buffer.from(
    toBinary(
      AppendUploadRequestSchema,
      create(AppendUploadRequestSchema, { payload: { case: 'metadata', value: { id: uploadId, offset: 0n } } }),
    ),
  );
  const appends: [string, Rpc, Buffer[]][] = [
    ['an empty append stream', append, []],
    ['a chunk before the append metadata', append, [chunk, appendMeta]],
    ['two append metadata messages', append, [appendMeta, chunk, appendMeta]],
    ['an append whose first message is not protobuf', append, [garbage, chunk]],
    ['an append with a message that is not protobuf mid-stream', append, [appendMeta, chunk, garbage, chunk]],
    ['an append whose metadata names no upload id', append, [meta, chunk]],
  ];
  for (const [name, rpc, messages] of appends) {
    const { code, details } = await run({ rpc, messages, metadata: [['authorization', owner]] });
    t.is(Status[code], 'INVALID_ARGUMENT', `${name}: ${details}`);
  }
  // None of those appends kept a byte.
  const state = await fetch(`${stack.url}/v1/uploads/${uploadId}`, {
    method: 'HEAD',
    headers: { authorization: owner, 'tus-resumable': '1.0.0' },
  });
  t.is(state.status, 200);
  t.is(state.headers.get('upload-offset'), '0');
  const unary = rpcs(targets).filter((rpc) => !rpc.streaming);
  for (const rpc of unary) {
    const { code, details } = await run({ rpc, messages: [garbage], metadata: auth });
    t.is(Status[code], 'INVALID_ARGUMENT', `${rpc.path} with bytes that are not protobuf: ${details}`);
  }
});
