// Refusals at the limits are counted: the per-workspace rate limit (429) in
// the service, the gateway's capacity bounds (503), and the service's image
// transform queue (503).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { form } from '../rest/support/http.js';
import { freshWorkspace, startStack } from '../rest/support/stack.js';
import { parseMetrics, valueOf } from './support/prometheus-text.js';
import { eventually } from '../support/eventually.js';

test('a call over the workspace rate limit counts in switchyard_rate_limited_total', async (t) => {
  const stack = await startStack({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
  t.teardown(() => stack.stop());
  const headers = await stack.auth(freshWorkspace());
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await fetch(`${stack.url}/v1/routing/rt_00000000000000000000000000`, { headers })).status);
  const refused = statuses.filter((status) => status === 429).length;
  t.true(refused >= 2, `statuses ${statuses.join(' ')}`);
  const samples = parseMetrics(await stack.metrics.metrics());
  t.is(valueOf(samples, 'switchyard_rate_limited_total', {}), refused);
});

test('an upload beyond MAX_INFLIGHT_UPLOADS counts in switchyard_capacity_refusals_total{bound="uploads"}', async (t) => {
  const stack = await startStack({ MAX_INFLIGHT_UPLOADS: '1', RATE_LIMIT_PER_SECOND: '0' });
  t.teardown(() => stack.stop());
  const headers = await stack.auth(freshWorkspace());
  // The first upload holds the only slot: its body never ends until the test lets it.
  let finish: () => void = () => {};
  const held = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('--b\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc'));
      finish = () => {
        controller.enqueue(new TextEncoder().encode('\r\n--b--\r\n'));
        controller.close();
      };
    },
  });
  const first = fetch(`${stack.url}/v1/assets/upload`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'multipart/form-data; boundary=b' },
    body: held,
    duplex: 'half',
  } as RequestInit);
  // The first upload holds the only slot once the gateway has its head: a second is refused from then on.
  let second: Response | undefined;
  await eventually(
    async () => {
      const form = new FormData();
      form.append('file', new Blob(['x']), 'x.txt');
      second = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form });
      return second.status === 503;
    },
    { timeout: 10_000, interval: 20, message: 'a second upload refused' },
  ).catch(() => undefined);
  t.is(second?.status, 503);
  finish();
  t.is((await first).status, 201);
  const samples = parseMetrics(await stack.metrics.metrics());
  t.true(valueOf(samples, 'switchyard_capacity_refusals_total', { bound: 'uploads' }) >= 1);
  t.is(valueOf(samples, 'switchyard_capacity_refusals_total', { bound: 'connections' }), 0);
});

test('a transformation beyond TRANSFORM_CONCURRENCY and its queue counts in switchyard_capacity_refusals_total{bound="transforms"}', async (t) => {
  const stack = await startStack({ RATE_LIMIT_PER_SECOND: '0', TRANSFORM_CONCURRENCY: '1' });
  t.teardown(() => stack.stop());
  const headers = await stack.auth(freshWorkspace());
  const before = parseMetrics(await stack.metrics.metrics());
  t.is(valueOf(before, 'switchyard_capacity_refusals_total', { bound: 'transforms' }), 0);
  t.true(
    before.some((sample) => sample.name === 'switchyard_capacity_refusals_total' && sample.labels['bound'] === 'transforms'),
    'the series exists before the first refusal',
  );
  // Noise, so each transformation takes real work; 42 distinct variants at once against one slot and a queue of 8.
  const source = await sharp(randomBytes(3000 * 2000 * 3), { raw: { width: 3000, height: 2000, channels: 3 } })
    .jpeg()
    .toBuffer();
  const response = await fetch(`${stack.url}/v1/assets/upload`, {
    method: 'POST',
    headers,
    body: form([['file', { bytes: new Uint8Array(source), filename: 'n.jpg' }]]),
  });
  const { url } = (await response.json()) as { url: string };
  const variants = [16, 32, 48, 64, 96, 128, 256, 384, 512, 640, 750, 828, 1080, 1200].flatMap((w) =>
    ['jpeg', 'png', 'webp'].map((format) => `${url}?w=${w}&format=${format}`),
  );
  const statuses = await Promise.all(variants.map((variant) => fetch(variant).then(async (res) => (await res.arrayBuffer(), res.status))));
  const refused = statuses.filter((status) => status === 503).length;
  const made = statuses.filter((status) => status === 200).length;
  t.true(refused > 0 && made + refused === statuses.length, `statuses ${statuses.join(' ')}`);
  const after = parseMetrics(await stack.metrics.metrics());
  t.is(valueOf(after, 'switchyard_capacity_refusals_total', { bound: 'transforms' }), refused);
  t.is(valueOf(after, 'switchyard_capacity_refusals_total', { bound: 'uploads' }), 0);
  const worked = (format: string) => valueOf(after, 'switchyard_transform_seconds_count', { format, outcome: 'ok' });
  t.is(worked('jpeg') + worked('png') + worked('webp'), made, 'every variant served was made once; no refused one did any work');
  t.is(valueOf(after, 'switchyard_transform_queue_depth', {}), 0);
  t.is(valueOf(after, 'switchyard_transforms_in_progress', {}), 0);
});
