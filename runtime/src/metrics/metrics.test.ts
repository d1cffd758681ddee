import test from 'ava';
import { Counter, Registry } from 'prom-client';
import { z } from 'zod';
import { metricsPortVariable } from '../env/variables.js';
import { createMetricsRegistry, metricsIfOn } from './registry.js';
import { serveMetrics } from './metrics-server.js';
import { CounterFamily, HistogramFamily } from './families.js';

test('METRICS_PORT: a port, 0 for a free one, or off; anything else is refused with the reason', (t) => {
  const schema = z.object({ METRICS_PORT: metricsPortVariable(9464) });
  t.is(schema.parse({}).METRICS_PORT, 9464);
  t.is(schema.parse({ METRICS_PORT: '0' }).METRICS_PORT, 0);
  t.is(schema.parse({ METRICS_PORT: '9100' }).METRICS_PORT, 9100);
  t.is(schema.parse({ METRICS_PORT: 'OFF' }).METRICS_PORT, 'off');
  for (const bad of ['on', '-1', '70000', '9464x']) {
    const result = schema.safeParse({ METRICS_PORT: bad });
    t.false(result.success, bad);
    t.regex(result.error?.issues[0]?.message ?? '', /is not a port number .* or off/, bad);
  }
});

test('/metrics serves the registry as Prometheus text; other paths and methods are refused', async (t) => {
  const registry = new Registry();
  new Counter({ name: 'things_total', help: 'Things.', registers: [registry] }).inc(3);
  const server = await serveMetrics(registry, '127.0.0.1', 0);
  t.teardown(() => server.close());
  const scrape = await fetch(server.url);
  t.is(scrape.status, 200);
  t.regex(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  t.regex(await scrape.text(), /^things_total 3$/m);
  t.is((await fetch(server.url.replace('/metrics', '/'))).status, 404);
  t.is((await fetch(server.url, { method: 'POST' })).status, 405);
});

test('off serves nothing; the default registry carries the process and Node metrics', async (t) => {
  t.is(metricsIfOn('off'), undefined);
  t.is(metricsIfOn(9464)?.port, 9464);
  const names = (await createMetricsRegistry().getMetricsAsJSON()).map((metric) => metric.name);
  for (const name of [
    'process_cpu_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_seconds',
    'nodejs_heap_size_used_bytes',
  ])
    t.true(names.includes(name), name);
});

test('counter and histogram families render as Prometheus text: cumulative buckets, +Inf, sum and count', async (t) => {
  const registry = new Registry();
  const calls = new CounterFamily(registry, { name: 'calls_total', help: 'Calls.', labelNames: ['method'] as const });
  const times = new HistogramFamily(registry, { name: 'time_seconds', help: 'Time.', labelNames: ['method'] as const, buckets: [0.1, 1] });
  const get = calls.cell({ method: 'get' });
  get.value += 2;
  calls.cell({ method: 'put' });
  t.is(calls.cell({ method: 'get' }), get, 'one cell per label set');
  const cell = times.cell({ method: 'get' });
  for (const value of [0.05, 0.1, 0.5, 7]) cell.observe(value);
  const text = await registry.metrics();
  t.regex(text, /^calls_total\{method="get"\} 2$/m);
  t.regex(text, /^calls_total\{method="put"\} 0$/m);
  t.regex(text, /^time_seconds_bucket\{method="get",le="0\.1"\} 2$/m);
  t.regex(text, /^time_seconds_bucket\{method="get",le="1"\} 3$/m);
  t.regex(text, /^time_seconds_bucket\{method="get",le="\+Inf"\} 4$/m);
  t.regex(text, /^time_seconds_sum\{method="get"\} 7\.65$/m);
  t.regex(text, /^time_seconds_count\{method="get"\} 4$/m);
  t.regex(text, /^# TYPE time_seconds histogram$/m);
  t.is(calls.size, 2);
});
