import { join } from 'node:path';
import { cpuNotes, type Side } from '../harness/alternate.js';
import { compareHttp } from '../harness/http-load.js';
import { plan } from '../harness/plan.js';
import { packageVersion, startAll } from '../harness/peers.js';
import { result, type BenchResult } from '../harness/results.js';
import { startChild, type ChildServer } from '../harness/child-server.js';
import { createWorkspace } from '../harness/servers.js';
import { handlerNameOf } from './dispatch-handlers.js';
import { buildRouteSet } from './route-set.js';

/**
 * More, shorter rounds than the plan's two: both sides are fast and close, and
 * on a shared machine one slow round would otherwise decide the ratio.
 */
const SCHEDULE = { rounds: 6, measureSeconds: plan.measureSeconds / 2 };

/**
 * dispatch-fastify: requests/s through fastifyDispatch with 1,000 routes from
 * a watched table, against the same routes registered in Fastify directly
 * with the same handlers. dispatch-fetch: fetchHandler against Hono's own
 * router, both served by @hono/node-server. The load (autocannon, 10
 * connections, alternating rounds) cycles through one request per route;
 * every answer is checked first to name its route's handler. In process, the
 * dispatcher's match and call (`begin` + `run`) cost less than find-my-way's
 * lookup among the same 1,000 routes; the rest is the framework's own work.
 */
export function dispatchBench(kind: 'fastify' | 'fetch'): () => Promise<BenchResult[]> {
  const sides =
    kind === 'fastify' ? { ours: 'fastify-dispatch', baseline: 'fastify-direct' } : { ours: 'fetch-dispatch', baseline: 'hono' };
  return async () => {
    const ws = await createWorkspace(`dispatch-${kind}`);
    try {
      const [ours, baseline] = await startAll([startSide(ws.dir, sides.ours), startSide(ws.dir, sides.baseline)]);
      try {
        const servers: Record<Side, { address: string; pid: number }> = { ours, baseline };
        const { routes, probes } = buildRouteSet();
        const requests = probes
          .filter((probe) => probe.expected !== undefined)
          .map((probe) => ({ method: probe.method, path: probe.path }));
        for (const side of ['ours', 'baseline'] as const)
          await checkAnswers(
            servers[side].address,
            requests,
            routes.map((_, index) => handlerNameOf(index)),
          );
        const stats = await compareHttp(
          (side) => ({ url: servers[side].address, requests }),
          { ours: ours.pid, baseline: baseline.pid },
          SCHEDULE,
        );
        const baselineName =
          kind === 'fastify'
            ? `fastify ${packageVersion('fastify')}, routes registered directly`
            : `hono ${packageVersion('hono')} (its default router) on @hono/node-server ${packageVersion('@hono/node-server')}`;
        return [
          result(`dispatch-${kind}`, stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', {
            goal: 'ratio >= 0.9',
            notes: {
              ...cpuNotes(stats),
              routes: routes.length,
              baseline: baselineName,
              load: 'one request per route, cycled; no middleware on the records',
            },
          }),
        ];
      } finally {
        await Promise.all([ours.stop(), baseline.stop()]);
      }
    } finally {
      await ws.cleanup();
    }
  };
}

/** Every route answers 200 with its own handler's name: a fast wrong answer is not a result. */
async function checkAnswers(
  address: string,
  requests: readonly { method: string; path: string }[],
  handlerNames: readonly string[],
): Promise<void> {
  for (const [index, request] of requests.entries()) {
    const response = await fetch(`${address}${request.path}`, { method: request.method });
    const body = (await response.json()) as { handler?: string };
    if (response.status !== 200 || body.handler !== handlerNames[index]) {
      throw new Error(
        `${address}: ${request.method} ${request.path} answered ${response.status} ${JSON.stringify(body)}, expected ${handlerNames[index]}`,
      );
    }
  }
}

const APP = new URL('../baselines/dispatch-app.ts', import.meta.url).pathname;

/** One side's server, with a log of its own (both run the same file: a shared log would give both the first one's ready line). */
async function startSide(dir: string, side: string): Promise<ChildServer & { address: string }> {
  const child = await startChild({
    args: ['--import', 'tsx', APP],
    env: { DISPATCH_SIDE: side },
    ready: /ready url=(\S+)/,
    logFile: join(dir, `${side}.log`),
  });
  return { ...child, address: child.ready[1]! };
}
