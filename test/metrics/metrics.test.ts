// /metrics of `switchyard start` (one registry for the gateway and the
// service): after a known mix of calls, the HTTP and gRPC series count
// exactly what was sent, by route template and code; every gRPC method has
// its series from the start; image transformations are counted by format
// and outcome; and promtool accepts the scrape.
import test from 'ava';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { Child, cleanEnv } from '../rest/support/processes.js';
import { fixtureFile, form } from '../rest/support/http.js';
import { mintToken } from '../rest/support/tokens.js';
import { testWhen } from '../support/conditional-test.js';
import { parseMetrics, valueOf, type Sample } from './support/prometheus-text.js';
import { eventually } from '../support/eventually.js';

const run = promisify(execFile);

// .ci/run installs Debian's prometheus package, which brings promtool, and sets REQUIRE_PROMTOOL=1.
const hasPromtool = await run('promtool', ['--version']).then(
  () => true,
  () => false,
);
const promtoolTest = testWhen(hasPromtool, 'promtool not installed; apt-get install prometheus', 'REQUIRE_PROMTOOL');
const PROM_CLIENT_DEFAULT_GAUGES = /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

let app: Child;
let dataDir: string;
let api: string;
let metricsUrl: string;
let secret: string;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'switchyard-metrics-'));
  secret = randomBytes(32).toString('base64url');
  app = new Child(
    ['start'],
    cleanEnv({
      HOST: '127.0.0.1',
      PORT: '0',
      GRPC_PORT: '0',
      METRICS_PORT: '0',
      DATA_DIR: dataDir,
      AUTH_SECRET: secret,
      LOG_LEVEL: 'warn',
    }),
  );
  const [, base] = await app.waitFor(/REST gateway +(http:\/\/\S+)/);
  const [, metrics] = await app.waitFor(/metrics +(http:\/\/\S+)/);
  api = base!;
  metricsUrl = metrics!;
});
test.after.always(async () => {
  await app?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const response = await fetch(metricsUrl);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${text}`);
  return { text, samples: parseMetrics(text) };
}

test('every gRPC method has its series at zero before its first call, as go-grpc-middleware does', async (t) => {
  const { samples } = await scrape();
  const replace = { grpc_type: 'client_stream', grpc_service: 'switchyard.v1.AssetService', grpc_method: 'ReplaceAsset' };
  t.is(valueOf(samples, 'grpc_server_started_total', replace), 0);
  t.is(valueOf(samples, 'grpc_server_handled_total', { ...replace, grpc_code: 'OK' }), 0);
  t.is(valueOf(samples, 'grpc_server_handled_total', { ...replace, grpc_code: 'Unauthenticated' }), 0);
  t.is(valueOf(samples, 'grpc_server_handling_seconds_count', replace), 0);
  t.true(
    samples.some((sample) => sample.name === 'process_cpu_seconds_total'),
    'the default process metrics',
  );
  t.true(
    samples.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds'),
    'the default Node metrics',
  );
});

// Serial, so it runs before the concurrent tests: its file requests must not fall into the known mix's deltas.
test.serial(
  'image transformations: the queue gauges and the work histogram exist from the start and count each transformation by format and outcome',
  async (t) => {
    const auth = { authorization: `Bearer ${await mintToken(secret, { workspace: `transforms-${randomBytes(4).toString('hex')}` })}` };
    const before = (await scrape()).samples;
    for (const name of ['switchyard_transform_queue_depth', 'switchyard_transforms_in_progress'])
      t.true(
        before.some((sample) => sample.name === name),
        name,
      );
    for (const format of ['jpeg', 'png', 'webp', 'avif']) {
      for (const outcome of ['ok', 'invalid', 'error'])
        t.true(
          before.some(
            (sample) =>
              sample.name === 'switchyard_transform_seconds_count' &&
              sample.labels['format'] === format &&
              sample.labels['outcome'] === outcome,
          ),
          `${format} ${outcome}`,
        );
    }
    t.true(before.some((sample) => sample.name === 'switchyard_capacity_refusals_total' && sample.labels['bound'] === 'transforms'));
    const delta = (after: Sample[], name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);

    const upload = async (file: Awaited<ReturnType<typeof fixtureFile>>): Promise<string> => {
      const response = await fetch(`${api}/v1/assets/upload`, { method: 'POST', headers: auth, body: form([['file', file]]) });
      t.is(response.status, 201);
      return ((await response.json()) as { url: string }).url;
    };
    const png = await upload(await fixtureFile('image.png'));
    // A JPEG cut short: sniffed as a JPEG, but sharp cannot decode it.
    const whole = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 200, g: 40, b: 40 } } })
      .jpeg()
      .toBuffer();
    const broken = await upload({ bytes: new Uint8Array(whole.subarray(0, 400)), filename: 'broken.jpg' });
    const statuses = [];
    for (const url of [
      `${png}?w=32&format=webp`,
      `${png}?w=16&format=webp`,
      `${png}?w=32&format=webp`,
      `${png}?w=16&format=png`,
      `${broken}?w=16&format=jpeg`,
    ])
      statuses.push((await fetch(url)).status);
    t.deepEqual(statuses, [200, 200, 200, 200, 400], 'two WebP variants (one asked twice), a PNG one, an undecodable source');

    // Wait until the gateway has observed all seven requests, so none lands in another test's deltas.
    const files = (samples: Sample[]) =>
      samples
        .filter(
          (sample) =>
            sample.name === 'http_server_request_duration_seconds_count' && sample.labels['route'] === '/files/:assetId/:fileName',
        )
        .reduce((sum, sample) => sum + sample.value, 0);
    const uploads = (samples: Sample[]) =>
      valueOf(samples, 'http_server_request_duration_seconds_count', { method: 'POST', route: '/v1/assets/upload', status_code: '201' });
    let after = (await scrape()).samples;
    await eventually(
      async () => {
        after = (await scrape()).samples;
        return files(after) - files(before) >= 5 && uploads(after) - uploads(before) >= 2;
      },
      { timeout: 10_000, message: 'the gateway observed all seven requests' },
    ).catch(() => undefined);
    t.is(
      delta(after, 'switchyard_transform_seconds_count', { format: 'webp', outcome: 'ok' }),
      2,
      'the second ask of a variant is a read, not a transformation',
    );
    t.is(delta(after, 'switchyard_transform_seconds_count', { format: 'png', outcome: 'ok' }), 1);
    t.is(delta(after, 'switchyard_transform_seconds_count', { format: 'jpeg', outcome: 'invalid' }), 1);
    t.is(delta(after, 'switchyard_transform_seconds_count', { format: 'jpeg', outcome: 'ok' }), 0);
    t.true(delta(after, 'switchyard_transform_seconds_sum', { format: 'webp', outcome: 'ok' }) > 0);
    t.is(
      delta(after, 'switchyard_store_operation_seconds_count', { store: 'blob', operation: 'put', outcome: 'ok' }),
      2 + 3,
      'two uploads and three variants stored',
    );
    t.is(valueOf(after, 'switchyard_transform_queue_depth', {}), 0);
    t.is(valueOf(after, 'switchyard_transforms_in_progress', {}), 0);
    t.is(valueOf(after, 'switchyard_capacity_refusals_total', { bound: 'transforms' }), 0);
  },
);

test('after a known mix of calls, the counts match what was sent, by route template and by code', async (t) => {
  const workspace = `metrics-${randomBytes(4).toString('hex')}`;
  const auth = { authorization: `Bearer ${await mintToken(secret, { workspace })}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const before = (await scrape()).samples;
  const delta = (after: Sample[], name: string, labels: Record<string, string>) =>
    valueOf(after, name, labels) - valueOf(before, name, labels);

  const created: string[] = [];
  for (let i = 0; i < 3; i++) {
    const response = await fetch(`${api}/v1/routing`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ method: 'GET', path: `/m${i}/:id`, handler: 'h' }),
    });
    t.is(response.status, 201);
    created.push(((await response.json()) as { id: string }).id);
  }
  t.is(
    (await fetch(`${api}/v1/routing`, { method: 'POST', headers: json, body: '{"method":1}' })).status,
    400,
    'refused by the gateway: never reaches the service',
  );
  t.is((await fetch(`${api}/v1/routing/rt_00000000000000000000000000`, { headers: auth })).status, 404);
  t.is((await fetch(`${api}/v1/routing/${created[0]}`)).status, 401);
  t.is((await fetch(`${api}/no/such/path/${randomBytes(8).toString('hex')}`)).status, 404);
  const png = await fixtureFile('image.png');
  const urls: string[] = [];
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${api}/v1/assets/upload`, { method: 'POST', headers: auth, body: form([['file', png]]) });
    t.is(response.status, 201);
    urls.push(((await response.json()) as { url: string }).url);
  }
  // Three different file urls (the last with a query of its own): a url read again may be answered from the gateway's memory
  // (gateway/src/files/validator-cache.ts), with no service call to count below.
  for (const url of [urls[0]!, urls[1]!, `${urls[0]!}?again`]) t.is((await fetch(url)).status, 200);

  // A request is observed when its response closes, which may come a moment after the client has read it.
  const requestsSent = 3 + 1 + 1 + 1 + 1 + 2 + 3;
  const httpTotal = (samples: Sample[]) =>
    samples.filter((sample) => sample.name === 'http_server_request_duration_seconds_count').reduce((sum, sample) => sum + sample.value, 0);
  let after = (await scrape()).samples;
  await eventually(
    async () => {
      after = (await scrape()).samples;
      return httpTotal(after) - httpTotal(before) >= requestsSent;
    },
    { timeout: 10_000, message: `the gateway observed all ${requestsSent} requests` },
  ).catch(() => undefined);
  const http = (method: string, route: string, status: number) =>
    delta(after, 'http_server_request_duration_seconds_count', { method, route, status_code: String(status) });
  t.is(http('POST', '/v1/routing', 201), 3);
  t.is(http('POST', '/v1/routing', 400), 1);
  t.is(http('GET', '/v1/routing/:id', 404), 1);
  t.is(http('GET', '/v1/routing/:id', 401), 1);
  t.is(http('GET', 'unmatched', 404), 1, 'an unknown path is counted without its path');
  t.is(http('POST', '/v1/assets/upload', 201), 2);
  t.is(http('GET', '/files/:assetId/:fileName', 200), 3);

  const grpc = (service: string, method: string, type: string) => ({
    grpc_type: type,
    grpc_service: `switchyard.v1.${service}`,
    grpc_method: method,
  });
  const createRoute = grpc('RouteService', 'CreateRoute', 'unary');
  t.is(delta(after, 'grpc_server_started_total', createRoute), 3);
  t.is(delta(after, 'grpc_server_handled_total', { ...createRoute, grpc_code: 'OK' }), 3);
  t.is(delta(after, 'grpc_server_handling_seconds_count', createRoute), 3);
  t.is(delta(after, 'grpc_server_msg_received_total', createRoute), 3);
  t.is(delta(after, 'grpc_server_msg_sent_total', createRoute), 3);
  const getRoute = grpc('RouteService', 'GetRoute', 'unary');
  t.is(delta(after, 'grpc_server_handled_total', { ...getRoute, grpc_code: 'NotFound' }), 1);
  t.is(delta(after, 'grpc_server_handled_total', { ...getRoute, grpc_code: 'Unauthenticated' }), 1);
  const upload = grpc('AssetService', 'UploadAsset', 'client_stream');
  t.is(delta(after, 'grpc_server_handled_total', { ...upload, grpc_code: 'OK' }), 2);
  t.true(delta(after, 'grpc_server_msg_received_total', upload) >= 4, 'metadata and at least one chunk per upload');
  t.is(delta(after, 'switchyard_uploads_started_total', { grpc_method: 'UploadAsset' }), 2);
  t.is(delta(after, 'switchyard_uploads_finished_total', { grpc_method: 'UploadAsset' }), 2);
  t.is(
    delta(after, 'switchyard_upload_bytes_received_total', { grpc_method: 'UploadAsset' }),
    2 * png.bytes.length,
    'exactly the file bytes',
  );
  t.is(delta(after, 'switchyard_store_operation_seconds_count', { store: 'route', operation: 'insert', outcome: 'ok' }), 3);
  t.is(delta(after, 'switchyard_store_operation_seconds_count', { store: 'blob', operation: 'put', outcome: 'ok' }), 2);
  t.is(valueOf(after, 'switchyard_rate_limited_total', {}), 0);
  t.is(valueOf(after, 'switchyard_capacity_refusals_total', { bound: 'uploads' }), 0);
  const readFile = grpc('FileService', 'ReadFile', 'server_stream');
  t.is(delta(after, 'grpc_server_handled_total', { ...readFile, grpc_code: 'OK' }), 3);
  t.true(delta(after, 'grpc_server_msg_sent_total', readFile) >= 6, 'file info and at least one chunk per read');
});

promtoolTest('promtool accepts the scrape', async (t) => {
  const { text } = await scrape();
  const checked = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = execFile('promtool', ['check', 'metrics'], (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
    child.stdin?.end(text);
  });
  // prom-client's default Node metrics name three gauges with `_total` (kept: Node dashboards use these names); nothing else may be flagged.
  const findings = checked.output.split('\n').filter((line) => line.trim() !== '' && !PROM_CLIENT_DEFAULT_GAUGES.test(line));
  t.deepEqual(findings, [], checked.output);
});
