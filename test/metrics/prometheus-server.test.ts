// A real Prometheus server (Debian's prometheus package) scraping a split
// deployment on loopback: the service and the gateway as two processes, each
// with its own /metrics. The rate of the calls made is read back through
// Prometheus' HTTP query API.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Child, cleanEnv, ROOT } from '../rest/support/processes.js';
import { mintToken } from '../rest/support/tokens.js';
import { eventually } from '../support/eventually.js';
import { testWhen } from '../support/conditional-test.js';
import { freePort } from '../support/free-port.js';

const hasPrometheus = await new Promise<boolean>((resolve) => execFile('prometheus', ['--version'], (error) => resolve(error === null)));
// .ci/run installs Debian's prometheus package and sets REQUIRE_PROMTOOL=1.
const prometheusTest = testWhen(hasPrometheus, 'prometheus not installed; apt-get install prometheus', 'REQUIRE_PROMTOOL');

interface QueryAnswer {
  status: string;
  data: { result: { metric: Record<string, string>; value: [number, string] }[] };
}

prometheusTest('Prometheus scrapes the service and the gateway and answers a rate of the calls made', async (t) => {
  t.timeout(90_000);
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-prometheus-'));
  const secret = randomBytes(32).toString('base64url');
  const processes: Child[] = [];
  let prometheus: ReturnType<typeof spawn> | undefined;
  t.teardown(async () => {
    prometheus?.kill('SIGKILL');
    await Promise.all(processes.map((child) => child.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  const service = new Child(
    ['service'],
    cleanEnv({
      HOST: '127.0.0.1',
      GRPC_PORT: '0',
      METRICS_PORT: '0',
      DATA_DIR: join(dir, 'data'),
      AUTH_SECRET: secret,
      CDN_URL: 'http://cdn.test/files',
      LOG_LEVEL: 'warn',
    }),
  );
  processes.push(service);
  const [, serviceAddress, serviceMetrics] = await service.waitFor(/listening on (\S+) \(metrics at (http:\/\/\S+)\)/);
  const gateway = new Child(
    ['gateway'],
    cleanEnv({ HOST: '127.0.0.1', PORT: '0', METRICS_PORT: '0', SERVICE_URL: `http://${serviceAddress}`, LOG_LEVEL: 'warn' }),
  );
  processes.push(gateway);
  const [, gatewayUrl, gatewayMetrics] = await gateway.waitFor(/listening on (http:\/\/\S+) .*metrics at (http:\/\/\S+)\)/);

  const target = (url: string) => new URL(url).host;
  await writeFile(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: switchyard-service',
      `    static_configs: [{ targets: ['${target(serviceMetrics!)}'] }]`,
      '  - job_name: switchyard-gateway',
      `    static_configs: [{ targets: ['${target(gatewayMetrics!)}'] }]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  prometheus = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: 'ignore' },
  );
  const query = async (promql: string): Promise<QueryAnswer['data']['result']> => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const answer = (await response.json()) as QueryAnswer;
    if (answer.status !== 'success') throw new Error(`query ${promql}: ${JSON.stringify(answer)}`);
    return answer.data.result;
  };
  /** Queries until the answer holds (Prometheus scrapes on its own schedule); fails after 45 s with the last answer. */
  const queried = (promql: string, holds: (values: number[]) => boolean): Promise<number[]> =>
    eventually(
      async () => {
        const values = await query(promql).then(
          (result) => result.map((sample) => Number(sample.value[1])),
          () => [],
        );
        if (!holds(values)) throw new Error(`last answer ${JSON.stringify(values)}`);
        return values;
      },
      { timeout: 45_000, interval: 500, message: `${promql} holding` },
    );

  // Both targets up, before any call.
  t.deepEqual(await queried('up', (values) => values.length === 2 && values.every((value) => value === 1)), [1, 1]);

  const auth = { authorization: `Bearer ${await mintToken(secret, { workspace: 'prometheus' })}`, 'content-type': 'application/json' };
  const createRoutes = async (from: number, count: number): Promise<void> => {
    for (let i = from; i < from + count; i++) {
      const response = await fetch(`${gatewayUrl}/v1/routing`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ method: 'GET', path: `/p${i}`, handler: 'h' }),
      });
      t.is(response.status, 201);
    }
  };
  const calls = 40;
  // In two halves with a scrape between: a series born with its first request needs a later sample to show a rate.
  await createRoutes(0, calls / 2);
  await queried(
    'http_server_request_duration_seconds_count{job="switchyard-gateway",route="/v1/routing",status_code="201"}',
    (values) => values[0] === calls / 2,
  );
  await createRoutes(calls / 2, calls / 2);
  const [handled] = await queried(
    'sum(grpc_server_handled_total{job="switchyard-service",grpc_method="CreateRoute",grpc_code="OK"})',
    (values) => values[0] === calls,
  );
  const [serviceRate] = await queried(
    'sum(rate(grpc_server_handled_total{job="switchyard-service",grpc_method="CreateRoute",grpc_code="OK"}[1m]))',
    (values) => (values[0] ?? 0) > 0,
  );
  const [rate] = await queried(
    'sum(rate(http_server_request_duration_seconds_count{job="switchyard-gateway",route="/v1/routing",status_code="201"}[1m]))',
    (values) => (values[0] ?? 0) > 0,
  );
  t.log(`service: ${handled} CreateRoute calls, ${serviceRate?.toFixed(3)}/s; gateway: ${rate?.toFixed(3)} requests/s`);
  t.true((rate ?? 0) > 0 && (serviceRate ?? 0) > 0);

  // The Grafana dashboard's queries are valid PromQL here, and every metric they name exists.
  const dashboard = JSON.parse(await readFile(join(ROOT, 'ops/grafana/switchyard-dashboard.json'), 'utf8')) as {
    panels: { title: string; targets: { expr: string }[] }[];
  };
  for (const panel of dashboard.panels) {
    for (const { expr } of panel.targets) {
      const promql = expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', '.*');
      await t.notThrowsAsync(query(promql), `${panel.title}: ${promql}`);
      for (const [, metric] of promql.matchAll(/([a-z_:][a-z0-9_:]*)\{job/g)) {
        const series = await query(`count({__name__="${metric}"})`);
        t.true(Number(series[0]?.value[1] ?? 0) > 0, `${panel.title}: ${metric} has series`);
      }
    }
  }
});
