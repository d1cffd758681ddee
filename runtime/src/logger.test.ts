import test from 'ava';
import { Writable } from 'node:stream';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { Code, ConnectError } from '@connectrpc/connect';
import { createLogger } from './logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger('info', destination), lines };
}

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

test('credentials and header sets are censored at the top and inside logged errors, requests and metadata', (t) => {
  const { log, lines } = capture();
  const failure = Object.assign(new Error('upstream refused'), {
    headers: { authorization: `Bearer ${TOKEN}` },
    cause: { token: TOKEN },
    $response: { headers: { 'set-cookie': TOKEN } },
    metadata: { authorization: TOKEN },
  });
  log.info({ authorization: `Bearer ${TOKEN}`, token: TOKEN, secret: TOKEN, headers: { cookie: TOKEN } }, 'top level');
  log.error({ err: failure }, 'an error');
  log.info({ req: { headers: { authorization: TOKEN } }, metadata: { authorization: TOKEN } }, 'a request');
  log.child({ requestId: 'r1' }).info({ token: TOKEN }, 'through a child');
  const written = JSON.stringify(lines);
  t.false(written.includes('c2lnbmF0dXJl'), written);
  t.is(lines.length, 4);
  t.is(lines[0]!['authorization'], '[redacted]');
  t.is((lines[1]!['err'] as { message: string }).message, 'upstream refused', 'the rest of the error stays');
  t.is(lines[3]!['requestId'], 'r1');
});

test("a gRPC error's details are logged decoded (ErrorInfo, BadRequest, RetryInfo), never as a map of byte offsets", (t) => {
  const { log, lines } = capture();
  const message = (build: (writer: BinaryWriter) => void): Uint8Array => {
    const writer = new BinaryWriter();
    build(writer);
    return writer.finish();
  };
  const errorInfo = message((w) => {
    w.tag(1, WireType.LengthDelimited).string('RESOURCE_EXHAUSTED');
    w.tag(2, WireType.LengthDelimited).string('switchyard');
    w.tag(3, WireType.LengthDelimited)
      .fork()
      .tag(1, WireType.LengthDelimited)
      .string('limit')
      .tag(2, WireType.LengthDelimited)
      .string('1048576')
      .join();
  });
  const badRequest = message((w) =>
    w
      .tag(1, WireType.LengthDelimited)
      .fork()
      .tag(1, WireType.LengthDelimited)
      .string('file')
      .tag(2, WireType.LengthDelimited)
      .string('too large')
      .join(),
  );
  const retryInfo = message((w) =>
    w.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.Varint).int64(2).tag(2, WireType.Varint).int32(500_000_000).join(),
  );
  const failure = new ConnectError('refused', Code.ResourceExhausted, undefined, [
    { type: 'google.rpc.ErrorInfo', value: errorInfo } as never,
    { type: 'google.rpc.BadRequest', value: badRequest } as never,
    { type: 'google.rpc.RetryInfo', value: retryInfo } as never,
    { type: 'google.rpc.ErrorInfo', value: new Uint8Array([0xff, 0xff, 0xff]) } as never,
    { type: 'acme.Unknown', value: new Uint8Array(7) } as never,
  ]);
  log.error({ err: failure }, 'request failed');
  t.deepEqual((lines[0]!['err'] as { details: unknown }).details, [
    { type: 'google.rpc.ErrorInfo', reason: 'RESOURCE_EXHAUSTED', domain: 'switchyard', metadata: { limit: '1048576' } },
    { type: 'google.rpc.BadRequest', fieldViolations: [{ field: 'file', description: 'too large' }] },
    { type: 'google.rpc.RetryInfo', retryDelayMs: 2500 },
    { type: 'google.rpc.ErrorInfo', bytes: 3 },
    { type: 'acme.Unknown', bytes: 7 },
  ]);
  t.is((lines[0]!['err'] as { message: string }).message, '[resource_exhausted] refused');
});

/** Runs `body` (statements using createLogger) in a fresh node process and returns its stdout as it arrived, with the times. */
async function stdoutOf(body: string): Promise<{ text: string; arrivals: { at: number; text: string }[]; closedAt: number }> {
  const { spawn } = await import('node:child_process');
  const source = `import { createLogger } from ${JSON.stringify(new URL('./logger.ts', import.meta.url).href)};\n${body}`;
  const child = spawn(process.execPath, ['--import=tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = performance.now();
  const arrivals: { at: number; text: string }[] = [];
  child.stdout.on('data', (chunk: Buffer) => arrivals.push({ at: performance.now() - started, text: chunk.toString() }));
  await new Promise((resolve) => child.once('close', resolve));
  return { text: arrivals.map((arrival) => arrival.text).join(''), arrivals, closedAt: performance.now() - started };
}

test('to stdout, two loggers share one writer: every line whole and in order, the pending ones written at exit', async (t) => {
  const { text } = await stdoutOf(`
    const a = createLogger('info', undefined, 'a');
    const b = createLogger('info', undefined, 'b');
    for (let i = 0; i < 3000; i++) (i % 2 ? b : a).info({ i, pad: 'x'.repeat(i % 300) }, 'line');
    process.exit(0);
  `);
  const lines = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { i: number; service: string });
  t.is(lines.length, 3000);
  t.deepEqual(
    lines.map((line) => line.i),
    Array.from({ length: 3000 }, (_, i) => i),
  );
  t.true(lines.every((line) => line.service === (line.i % 2 ? 'b' : 'a')));
});

test('to stdout, a lone line goes out within about 100 ms, long before the process ends', async (t) => {
  const { arrivals, closedAt } = await stdoutOf(`
    createLogger('info').info('alone');
    setTimeout(() => {}, 3000);
  `);
  t.regex(arrivals[0]?.text ?? '', /"msg":"alone"/);
  // Counted back from the end, which comes 3 s after the line is logged: the child's start-up (seconds
  // on a loaded machine) is not the logger's delay.
  const beforeEnd = closedAt - arrivals[0]!.at;
  t.true(beforeEnd > 2500, `the line arrived ${Math.round(beforeEnd)} ms before the process ended, 3000 ms after logging it`);
});

test('to stdout, the last lines before an exit go out, whether the process exits itself or runs out of work', async (t) => {
  const exited = await stdoutOf(`
    const log = createLogger('info');
    log.info('first');
    setTimeout(() => {
      log.info('last');
      process.exit(0);
    }, 300);
  `);
  t.deepEqual(
    exited.text
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { msg: string }).msg),
    ['first', 'last'],
  );
  const ended = await stdoutOf(`
    createLogger('info').fatal('could not start');
    process.exitCode = 1;
  `);
  t.regex(ended.text, /"msg":"could not start"/);
});

test('a replaced process.stdout.write gets the lines, as with pino', async (t) => {
  const { text } = await stdoutOf(`
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (chunk, ...rest) => write('captured:' + chunk, ...rest);
    createLogger('info').info('through the replacement');
  `);
  t.regex(text, /^captured:\{.*"msg":"through the replacement"/);
});
