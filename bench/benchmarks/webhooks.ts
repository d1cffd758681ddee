import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createRestClient } from '@switchyard/client';
import { result, type BenchResult } from '../harness/results.js';
import { percentile } from '../harness/stats.js';
import { createRouteOver } from '../harness/route-changes.js';
import { createWorkspace, startOurs } from '../harness/servers.js';
import { BENCH_WORKSPACE, benchToken } from '../harness/tokens.js';

/** Events of the throughput run: one route apply of this many routes, one `route.created` each. */
const EVENTS = 1000;
/** Changes of the latency run, one after another. */
const LATENCY_CHANGES = 200;

/** A receiver as a user would run one: node:http on 127.0.0.1, each request verified with `standardwebhooks` before its 204. */
interface Receiver {
  readonly url: string;
  /** Verified bodies in arrival order. */
  readonly bodies: string[];
  /** Resolves when `count` verified requests have arrived in all; answers the `performance.now()` of that one. */
  until(count: number): Promise<number>;
  /** Resolves with the arrival time of the first verified request whose body contains `marker`. */
  arrivalOf(marker: string): Promise<number>;
  useSecret(secret: string): void;
  close(): Promise<void>;
}

async function startVerifyingReceiver(): Promise<Receiver> {
  let webhook: Webhook | undefined;
  const bodies: string[] = [];
  const arrivals: number[] = [];
  const waiting = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        webhook!.verify(body, stringHeaders(req.headers));
      } catch {
        res.writeHead(400).end();
        return;
      }
      bodies.push(body);
      arrivals.push(performance.now());
      res.writeHead(204).end();
      for (const wake of [...waiting]) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const waitFor = <T>(check: () => T | undefined): Promise<T> =>
    new Promise((resolve) => {
      const test = () => {
        const found = check();
        if (found === undefined) return;
        waiting.delete(test);
        resolve(found);
      };
      waiting.add(test);
      test();
    });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    bodies,
    until: (count) => waitFor(() => (arrivals.length >= count ? arrivals[count - 1] : undefined)),
    arrivalOf: (marker) =>
      waitFor(() => {
        const at = bodies.findIndex((body) => body.includes(marker));
        return at === -1 ? undefined : arrivals[at];
      }),
    useSecret: (secret) => void (webhook = new Webhook(secret)),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') out[name] = value;
  return out;
}

/**
 * Webhook delivery (issue 42), on `npm start` with SQLite. Throughput: one
 * route apply commits EVENTS routes, and the relay delivers their
 * `route.created` events to a receiver that verifies each with
 * `standardwebhooks`, timed from the apply's answer to the last verified
 * arrival; the baseline is a bare loop that signs the same bodies with
 * `standardwebhooks` and POSTs them one after another to the same receiver
 * (one at a time, as the relay sends to one endpoint). Goal: ratio >= 0.7.
 * Latency: LATENCY_CHANGES route creations, each timed from just before its
 * request to its verified arrival (commit to a 2xx, plus the request); the
 * baseline is the request alone (no goal: reported).
 */
export async function webhookBench(): Promise<BenchResult[]> {
  const ws = await createWorkspace('webhook-delivery');
  const receiver = await startVerifyingReceiver();
  const ours = await startOurs(ws, { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', LOG_LEVEL: 'warn' });
  try {
    const client = createRestClient({ baseUrl: ours.url, token: ws.token });
    const admin = createRestClient({ baseUrl: ours.url, token: await benchToken(ws.secret, BENCH_WORKSPACE, 'workspace:admin') });
    const endpoint = await admin.createWebhook({ url: receiver.url, events: ['route.*'] });
    receiver.useSecret(endpoint.secret);

    const routes = Array.from({ length: EVENTS }, (_, i) => ({ method: 'GET', path: `/bench/${i}/:id`, handler: `h${i}` }));
    await client.applyRoutes({ routes, owner: 'bench' });
    const committed = performance.now();
    const last = await receiver.until(EVENTS);
    const oursPerSecond = EVENTS / ((last - committed) / 1000);

    // The baseline: the same bodies, signed and POSTed by a bare loop.
    const bodies = receiver.bodies.slice(0, EVENTS);
    const signer = new Webhook(endpoint.secret);
    const started = performance.now();
    for (const [i, body] of bodies.entries()) {
      const id = `msg_bench${i}`;
      const at = new Date();
      const response = await fetch(receiver.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signer.sign(id, at, body),
        },
        body,
      });
      if (response.status !== 204) throw new Error(`baseline POST answered ${response.status}`);
      await response.arrayBuffer();
    }
    const baselinePerSecond = bodies.length / ((performance.now() - started) / 1000);

    const latencies: number[] = [];
    const requests: number[] = [];
    for (let i = 0; i < LATENCY_CHANGES; i++) {
      const path = `/latency/${i}/:id`;
      const before = performance.now();
      await createRouteOver(ours.url, ws.token, path);
      requests.push(performance.now() - before);
      latencies.push((await receiver.arrivalOf(`"path":"${path}"`)) - before);
    }
    const notes = { events: EVENTS, database: 'SQLite', receiver: 'node:http on 127.0.0.1, standardwebhooks verify', perEndpoint: 1 };
    return [
      result('webhook-delivery', oursPerSecond, baselinePerSecond, 'events/s', 'higher', {
        goal: 'ratio >= 0.7',
        notes: { ...notes, baseline: 'a bare loop signing with standardwebhooks and POSTing the same bodies' },
      }),
      result('webhook-latency-p99', percentile(latencies, 0.99), percentile(requests, 0.99), 'ms', 'lower', {
        notes: { changes: LATENCY_CHANGES, database: 'SQLite', baseline: 'the route creation request alone' },
      }),
    ];
  } finally {
    await ours.stop();
    await receiver.close();
    await ws.cleanup();
  }
}
