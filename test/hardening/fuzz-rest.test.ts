// Property-based fuzzing of the REST gateway (and, behind it, the gRPC service) with malformed and
// hostile requests sent as raw bytes: broken and deep JSON, wrong types, hostile keys and strings,
// traversal/NUL/overlong ids, broken multipart, huge and repeated headers, tus requests at /v1/uploads
// with every tus header malformed, wrong content types and bodies past the length. Properties: no 5xx but
// 503, every error in the contract's JSON shape with a code matching its status, nothing logged as
// an internal error, the stack still healthy, and the heap back near its baseline afterwards.
import test from 'ava';
import fc from 'fast-check';
import { startStack, type Stack } from '../rest/support/stack.js';
import { connectViolation, contractViolation, tusViolation } from './support/error-shape.js';
import { deltaMib, memoryAfterGc, mib } from './support/heap.js';
import { hostileConnectCall } from './support/hostile-connect.js';
import { describeRequest, encodeRequest, hostileRequest, type HostileRequest, type Targets } from './support/hostile-http.js';
import { sendRaw, type RawHttpResponse } from './support/raw-http.js';
import { failureReport } from './support/fuzz-report.js';
import { seedTargets } from './support/seed-targets.js';
import { storedIn } from './support/stored.js';
import { scaled } from './support/soak.js';

const REQUESTS = scaled(1_200, 12_000);
/** Requests in flight at once: each property run sends one batch. */
const BATCH = 12;
/** Heap growth allowed after the run: routes and assets the fuzzer created legitimately live in caches. */
const HEAP_TOLERANCE = 24 * 2 ** 20;
/** docs/operations.md, "Metrics": route templates × method labels × statuses actually answered stay far below this. */
const MAX_HTTP_SERIES = 400;

let stack: Stack;
let targets: Targets;

test.before(async () => {
  // No rate limit (it would turn most of the run into 429s) and a small upload limit, so "too large" is reachable.
  stack = await startStack({ RATE_LIMIT_PER_SECOND: '0', MAX_UPLOAD_BYTES: String(128 * 1024), LOG_LEVEL: 'info' });
  targets = await seedTargets(stack, 'fuzz', '/seed/:id');
});
test.after.always(async () => stack?.stop());

async function send(request: HostileRequest): Promise<RawHttpResponse> {
  return sendRaw(stack.url, encodeRequest(request), { head: request.method === 'HEAD', timeoutMs: 20_000 });
}

/** The `code` of a JSON error reply. */
const codeOf = (body: Buffer): unknown => (JSON.parse(body.toString()) as { code?: unknown }).code;

/** Log lines at error level or above (pino: 50 error, 60 fatal): an internal error is a defect whatever the client saw. */
function takeErrorLines(): string[] {
  const bad = [...stack.logLines, ...stack.serviceLogLines].filter((line) => /"level":(5|6)0\b/.test(line));
  // Emptied as we go, so the collected lines do not count as memory the gateway kept.
  stack.logLines.length = 0;
  stack.serviceLogLines.length = 0;
  return bad;
}

test.serial(
  `${REQUESTS} hostile requests: no 5xx but 503, every error in the contract's shape, no internal error, memory back to baseline`,
  async (t) => {
    t.timeout(scaled(120_000, 1_800_000));
    const arbitrary = fc.oneof({ arbitrary: hostileRequest(targets), weight: 5 }, { arbitrary: hostileConnectCall(targets), weight: 2 });
    // Warm up (JIT, lazy modules, pools) before the baseline is taken.
    await Promise.all(fc.sample(arbitrary, { numRuns: 60, seed: 1 }).map((request) => send(request).catch(() => undefined)));
    takeErrorLines();
    const before = await memoryAfterGc();

    const statuses = new Map<number, number>();
    const endings = new Map<string, number>();
    let sent = 0;
    const started = performance.now();
    const outcome = await fc.check(
      fc.asyncProperty(fc.array(arbitrary, { minLength: BATCH, maxLength: BATCH }), async (requests) => {
        const answers = await Promise.all(
          requests.map(async (request) => ({ request, answer: await send(request).catch((error: Error) => error) })),
        );
        sent += requests.length;
        const problems: string[] = [];
        for (const { request, answer } of answers) {
          if (answer instanceof Error) {
            problems.push(`${answer.message}\n  request: ${describeRequest(request)}`);
            continue;
          }
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          endings.set(answer.ending, (endings.get(answer.ending) ?? 0) + 1);
          // The Connect protocol paths answer in that protocol's shapes; tus with its own statuses too; REST, files and the rest in the contract's.
          const check = request.target.startsWith('/switchyard.v1.')
            ? connectViolation
            : request.target.startsWith('/v1/uploads')
              ? tusViolation
              : contractViolation;
          const violation = check(answer, request.method === 'HEAD');
          if (violation !== undefined)
            problems.push(`${violation}\n  request: ${describeRequest(request)}\n  body: ${answer.body.subarray(0, 300).toString('utf8')}`);
        }
        const errors = takeErrorLines();
        if (errors.length > 0)
          problems.push(
            `logged as errors:\n${errors
              .slice(0, 3)
              .map((line) => line.slice(0, 1500))
              .join('\n')}\n  batch: ${requests.map(describeRequest).join('\n         ')}`,
          );
        if (problems.length > 0) throw new Error(problems.join('\n'));
      }),
      { numRuns: Math.ceil(REQUESTS / BATCH), ...(process.env['FUZZ_SEED'] ? { seed: Number(process.env['FUZZ_SEED']) } : {}) },
    );
    const elapsedMs = Math.round(performance.now() - started);
    if (outcome.failed) return void t.fail(failureReport(outcome));

    const health = await fetch(`${stack.url}/healthz`);
    t.is(health.status, 200, 'the stack is still healthy');
    const after = await memoryAfterGc();
    const grown = after.heapUsed - before.heapUsed;
    const histogram = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ');
    t.log(`${sent} requests in ${elapsedMs} ms; statuses ${histogram}; endings ${[...endings].map(([e, n]) => `${e}×${n}`).join(' ')}`);
    t.log(
      `heap after GC ${mib(before.heapUsed)} → ${mib(after.heapUsed)} (${deltaMib(grown)}); rss ${mib(before.rss)} → ${mib(after.rss)}`,
    );
    t.true(sent >= REQUESTS);
    t.true(grown < HEAP_TOLERANCE, `heap grew ${deltaMib(grown)}`);
    // Metrics name a request by its route template and an unknown method as `other`: hostile paths and methods add no series.
    const durations = await stack.metrics.getSingleMetric('http_server_request_duration_seconds')?.get();
    const series =
      durations?.values.filter((value) => (value as { metricName?: string }).metricName === 'http_server_request_duration_seconds_count')
        .length ?? 0;
    t.log(`${series} series of http_server_request_duration_seconds after the run (bound ${MAX_HTTP_SERIES})`);
    t.true(series > 0 && series <= MAX_HTTP_SERIES, `${series} series`);
  },
);

test('named cases the fuzzer found: each answered in the contract shape, never 500', async (t) => {
  const envelope = (flags: number, data: Buffer): Buffer =>
    Buffer.concat([Buffer.from([flags]), Buffer.from([0, 0, 0, data.length]), data]);
  const request = (head: string, body: Buffer = Buffer.alloc(0)): Promise<RawHttpResponse> =>
    sendRaw(stack.url, Buffer.concat([Buffer.from(`${head}Host: localhost\r\nContent-Length: ${body.length}\r\n\r\n`), body]));
  const bearer = `Authorization: ${targets.authorization}\r\n`;
  const notProtobuf = Buffer.from([0x0a, 0x05, 0x61]);

  // An Expect other than 100-continue was a bare 417 from Node: now ignored (RFC 9110 §10.1.1) and the request served.
  // A route of its own: the fuzzer may have changed or deleted the seeded one (PATCH and DELETE are real now).
  const created = await fetch(`${stack.url}/v1/routing`, {
    method: 'POST',
    headers: { authorization: targets.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: '/named/:id', handler: 'named' }),
  });
  const { id: routeId } = (await created.json()) as { id: string };
  const expect = await request(`GET /v1/routing/${routeId} HTTP/1.1\r\n${bearer}Expect: the-unexpected\r\n`);
  t.is(expect.status, 200);
  // CONNECT was dropped without an answer.
  const tunnel = await sendRaw(stack.url, Buffer.from('CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n'));
  t.is(tunnel.status, 405);
  t.is(codeOf(tunnel.body), 'unimplemented');
  // The Connect paths answered a wrong method or content type with a bare 405 / 415.
  const wrongMethod = await request('GET /switchyard.v1.RouteService/GetRoute HTTP/1.1\r\n');
  t.is(wrongMethod.status, 405);
  t.is(wrongMethod.header('allow'), 'POST');
  t.is(codeOf(wrongMethod.body), 'unimplemented');
  const wrongType = await request('POST /switchyard.v1.RouteService/GetRoute HTTP/1.1\r\nContent-Type: text/plain\r\n', Buffer.from('{}'));
  t.is(wrongType.status, 400);
  t.is(codeOf(wrongType.body), 'invalid_argument');
  // Bytes that are not protobuf were 500 internal (connect-es's own decoding error), also gzipped garbage.
  const unary = await request(
    `POST /switchyard.v1.RouteService/GetRoute HTTP/1.1\r\n${bearer}Content-Type: application/proto\r\n`,
    notProtobuf,
  );
  t.is(unary.status, 400);
  t.is(codeOf(unary.body), 'invalid_argument');
  const gzipped = await request(
    `POST /switchyard.v1.RouteService/GetRoute HTTP/1.1\r\n${bearer}Content-Type: application/proto\r\nContent-Encoding: gzip\r\n`,
    Buffer.from([0x0b]),
  );
  t.is(gzipped.status, 400);
  t.is(codeOf(gzipped.body), 'invalid_argument');
  // …and grpc-status 13 over gRPC-Web, where the status is a trailer frame in the body.
  const grpcWeb = await request(
    `POST /switchyard.v1.RouteService/GetRoute HTTP/1.1\r\n${bearer}Content-Type: application/grpc-web+proto\r\n`,
    envelope(0, notProtobuf),
  );
  t.is(grpcWeb.status, 200);
  t.regex(grpcWeb.body.toString('latin1'), /grpc-status: 3\r\n/);
  const compressedFlag = await request(
    `POST /switchyard.v1.RouteService/GetRoute HTTP/1.1\r\n${bearer}Content-Type: application/grpc-web+proto\r\n`,
    envelope(1, Buffer.alloc(0)),
  );
  t.regex(compressedFlag.body.toString('latin1'), /grpc-status: 3\r\n/);
  // A message protobuf-es accepts but the service's decoder does not was INTERNAL from grpc-js on the service.
  const streamed = await request(
    `POST /switchyard.v1.AssetService/UploadAsset HTTP/1.1\r\n${bearer}Content-Type: application/connect+proto\r\n`,
    Buffer.concat([envelope(0, notProtobuf), envelope(2, Buffer.from('{}'))]),
  );
  t.is(streamed.status, 200);
  t.regex(streamed.body.toString('utf8'), /"code":"invalid_argument"/);
  // A tus creation-with-upload refused for its bytes' headers (a wrong Content-Type, a malformed Upload-Checksum)
  // created the upload all the same, and the 415 did not even say where: each refusal left an orphan behind.
  const uploadsBefore = (await storedIn(stack.dataDir)).uploads;
  const tus = `${bearer}Tus-Resumable: 1.0.0\r\nUpload-Length: 5\r\n`;
  const wrongBytesType = await request(`POST /v1/uploads HTTP/1.1\r\n${tus}Content-Type: text/plain\r\n`, Buffer.from('hello'));
  t.is(wrongBytesType.status, 415);
  t.like(JSON.parse(wrongBytesType.body.toString()), { code: 'invalid_argument', details: [{ field: 'Content-Type' }] });
  const badChecksum = await request(
    `POST /v1/uploads HTTP/1.1\r\n${tus}Content-Type: application/offset+octet-stream\r\nUpload-Checksum: md5 AAAA\r\n`,
    Buffer.from('hello'),
  );
  t.is(badChecksum.status, 400);
  t.like(JSON.parse(badChecksum.body.toString()), { code: 'invalid_argument', details: [{ field: 'Upload-Checksum' }] });
  t.deepEqual((await storedIn(stack.dataDir)).uploads, uploadsBefore, 'a refused creation creates no upload');
});
