// W3C trace context through `npm start`: a caller's traceparent continues in
// the gateway's span and the service's span under it, both log lines carry
// the trace id, and with OTEL_EXPORTER_OTLP_ENDPOINT the spans arrive at an
// OTLP/HTTP receiver on loopback (the JSON encoding of the OTLP protocol).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Child, cleanEnv } from '../rest/support/processes.js';
import { mintToken } from '../rest/support/tokens.js';
import { eventually } from '../support/eventually.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

let receiver: Server;
const received: { service: string; span: OtlpSpan }[] = [];
let app: Child;
let api: string;
let secret: string;
let dataDir: string;

test.before(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && (req.headers['content-type'] ?? '').startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as OtlpExport;
        for (const resource of body.resourceSpans) {
          const service = resource.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue ?? '';
          for (const scope of resource.scopeSpans) for (const span of scope.spans) received.push({ service, span });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  }).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  dataDir = await mkdtemp(join(tmpdir(), 'switchyard-tracing-'));
  secret = randomBytes(32).toString('base64url');
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  app = new Child(
    ['start'],
    cleanEnv({
      HOST: '127.0.0.1',
      PORT: '0',
      GRPC_PORT: '0',
      DATA_DIR: dataDir,
      AUTH_SECRET: secret,
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    }),
  );
  const [, base] = await app.waitFor(/REST gateway +(http:\/\/\S+)/);
  api = base!;
});
test.after.always(async () => {
  await app?.stop();
  receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The JSON log lines of the server that carry `requestId`. */
function linesOf(requestId: string): Record<string, unknown>[] {
  return app.output
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(requestId))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The spans of `traceId` once `count` have been exported (or what has been, at a generous deadline, for the assertions to show). */
async function spansOf(traceId: string, count: number): Promise<{ service: string; span: OtlpSpan }[]> {
  const found = () => received.filter((entry) => entry.span.traceId === traceId);
  await eventually(() => found().length >= count, { timeout: 10_000, interval: 100 }).catch(() => undefined);
  return found();
}

/** The log lines of `requestId` once both layers have written theirs: the gateway's access line and the service's call line. */
async function bothLinesOf(requestId: string): Promise<Record<string, unknown>[]> {
  const both = (lines: Record<string, unknown>[]) =>
    lines.some((line) => line['msg'] === 'request') && lines.some((line) => line['msg'] === 'call');
  await eventually(() => both(linesOf(requestId)), { timeout: 10_000, interval: 20 }).catch(() => undefined);
  return linesOf(requestId);
}

test("a caller's traceparent continues through the gateway span into the service span, in the logs and the export", async (t) => {
  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  const requestId = `trace-${randomBytes(4).toString('hex')}`;
  const token = await mintToken(secret, { workspace: 'tracing' });
  const response = await fetch(`${api}/v1/routing/rt_00000000000000000000000000`, {
    headers: { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${callerSpan}-01`, 'x-request-id': requestId },
  });
  t.is(response.status, 404);

  const [gatewaySpan, serviceSpan] = await (async () => {
    const spans = await spansOf(traceId, 2);
    return [
      spans.find((entry) => entry.span.kind === 2 && entry.span.name === 'GET /v1/routing/:id'),
      spans.find((entry) => entry.span.name === 'GetRoute'),
    ];
  })();
  t.truthy(gatewaySpan, 'the gateway span was exported');
  t.truthy(serviceSpan, 'the service span was exported');
  t.is(gatewaySpan?.span.parentSpanId, callerSpan, "the gateway span continues the caller's");
  t.is(serviceSpan?.span.parentSpanId, gatewaySpan?.span.spanId, "the service span is the gateway span's child");
  t.is(gatewaySpan?.service, 'switchyard');
  const status = gatewaySpan?.span.attributes.find((attribute) => attribute.key === 'http.response.status_code')?.value;
  t.deepEqual(status, { intValue: 404 });

  const lines = await bothLinesOf(requestId);
  const access = lines.find((line) => line['msg'] === 'request');
  const call = lines.find((line) => line['msg'] === 'call');
  t.is(access?.['traceId'], traceId);
  t.is(call?.['traceId'], traceId);
});

test("without a traceparent (or with a malformed one) a new trace begins, the same in both layers' lines", async (t) => {
  const token = await mintToken(secret, { workspace: 'tracing' });
  for (const traceparent of [undefined, '00-00000000000000000000000000000000-0000000000000000-01', 'nonsense']) {
    const requestId = `trace-${randomBytes(4).toString('hex')}`;
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-request-id': requestId };
    if (traceparent) headers['traceparent'] = traceparent;
    t.is((await fetch(`${api}/v1/routing/rt_00000000000000000000000000`, { headers })).status, 404);
    const lines = await bothLinesOf(requestId);
    const traceIds = new Set(lines.map((line) => line['traceId']));
    t.is(traceIds.size, 1, String(traceparent));
    t.regex(String([...traceIds][0]), /^[0-9a-f]{32}$/);
    t.notRegex(String([...traceIds][0]), /^0+$/);
  }
});

test('a call made with an API key names the key (its id, never its secret) in both spans and both lines', async (t) => {
  const admin = await mintToken(secret, { workspace: 'tracing-keys' });
  const created = await fetch(`${api}/v1/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'traced', scopes: ['routes:read'], expiresAt: new Date(Date.now() + 86_400_000).toISOString() }),
  });
  t.is(created.status, 201);
  const key = (await created.json()) as { id: string; secret: string };
  const traceId = randomBytes(16).toString('hex');
  const requestId = `trace-${randomBytes(4).toString('hex')}`;
  const response = await fetch(`${api}/v1/routing`, {
    headers: {
      authorization: `Bearer ${key.secret}`,
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      'x-request-id': requestId,
    },
  });
  t.is(response.status, 200);
  await response.arrayBuffer();

  const spans = await spansOf(traceId, 2);
  const keyIdOf = (span: OtlpSpan | undefined) => span?.attributes.find((attribute) => attribute.key === 'switchyard.key_id')?.value;
  t.deepEqual(keyIdOf(spans.find((entry) => entry.span.name === 'GET /v1/routing')?.span), { stringValue: key.id }, 'the gateway span');
  t.deepEqual(keyIdOf(spans.find((entry) => entry.span.name === 'ListRoutes')?.span), { stringValue: key.id }, 'the service span');
  const lines = await bothLinesOf(requestId);
  t.is(lines.find((line) => line['msg'] === 'request')?.['keyId'], key.id, 'the access line');
  t.is(lines.find((line) => line['msg'] === 'call')?.['keyId'], key.id, 'the call line');
  const exported = JSON.stringify(received);
  t.false(exported.includes(key.secret) || app.output.includes(key.secret), 'no secret in the export or the output');
  t.false(exported.includes(key.secret.slice(3)) || app.output.includes(key.secret.slice(3)));

  // A token's request names no key.
  const byToken = `trace-${randomBytes(4).toString('hex')}`;
  await (await fetch(`${api}/v1/routing`, { headers: { authorization: `Bearer ${admin}`, 'x-request-id': byToken } })).arrayBuffer();
  t.is((await bothLinesOf(byToken)).find((line) => line['msg'] === 'request')?.['keyId'], undefined);
});
