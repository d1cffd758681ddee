// `tsx bench/tools/compare-builds.ts <list|create> <old cli/dist/bin.js> <new cli/dist/bin.js> [rounds] [seconds]`:
// two builds of `npm start` side by side under the rest-list-assets or
// rest-create-route load, in alternating short rounds (the order flipping each
// round) after a warm-up, so a busy shared machine hits both alike. Prints
// req/s per round and server CPU per request for each, and new ÷ old. For a
// before/after of a change when `npm run bench` ratios move with the load:
// build the old commit in a copy of the tree (`git archive <commit> | tar -x`,
// node_modules copied with `cp -a`, `npx tsc -b`) and pass both CLIs.
import { median } from '../harness/stats.js';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import autocannon, { type Options } from 'autocannon';
import { seedRows } from '../baselines/baseline-store.js';
import { startChild } from '../harness/child-server.js';
import { readCpuSeconds } from '../harness/proc.js';
import { createWorkspace, seedAsset } from '../harness/servers.js';
import { BENCH_WORKSPACE } from '../harness/tokens.js';

const [load, oldCli, newCli, roundsArg, secondsArg] = process.argv.slice(2);
if ((load !== 'list' && load !== 'create') || !oldCli || !newCli) throw new Error('usage: compare-builds <list|create> <old bin.js> <new bin.js> [rounds] [seconds]');
const rounds = Number(roundsArg ?? 6);
const seconds = Number(secondsArg ?? 5);
const LISTED_ASSETS = 10_000;

const ws = await createWorkspace(`compare-${load}`);
const servers: Record<'old' | 'new', { url: string; pid: number; stop(): Promise<void> }> = {} as never;
try {
  for (const [side, cli] of [['old', oldCli], ['new', newCli]] as const) {
    const dataDir = join(ws.dir, side);
    const child = await startChild({
      args: [cli, 'start'],
      env: { HOST: '127.0.0.1', PORT: '0', GRPC_PORT: '0', DATA_DIR: dataDir, AUTH_SECRET: ws.secret, RATE_LIMIT_PER_SECOND: '0', METRICS_PORT: '0' },
      ready: /REST gateway\s+(http:\/\/\S+)\s+gRPC service\s+(\S+)/,
      logFile: `${dataDir}.log`,
    });
    servers[side] = { url: child.ready[1]!, pid: child.pid, stop: child.stop };
    await seedAsset(servers[side].url, ws.token);
    if (load === 'list') seed(join(dataDir, 'switchyard.sqlite'));
  }
  const auth = { authorization: `Bearer ${ws.token}` };
  let n = 0; // shared by both sides: every route created is distinct
  const options = (url: string): Options =>
    load === 'list'
      ? { url: `${url}/v1/assets?pageSize=50`, headers: auth }
      : { url, requests: [{ method: 'POST', path: '/v1/routing', headers: { ...auth, 'content-type': 'application/json' }, setupRequest: (request) => ({ ...request, body: JSON.stringify({ method: 'GET', path: `/bench/r${++n}/:id`, middleware: ['auth', 'log'], handler: 'showItem' }) }) }] };
  const stats = { old: { rps: [] as number[], cpu: [] as number[] }, new: { rps: [] as number[], cpu: [] as number[] } };
  for (let round = 0; round <= rounds; round++) {
    for (const side of round % 2 ? (['new', 'old'] as const) : (['old', 'new'] as const)) {
      const server = servers[side];
      const cpuBefore = readCpuSeconds(server.pid);
      const r = await autocannon({ ...options(server.url), connections: 10, duration: round === 0 ? 3 : seconds });
      if (r.non2xx || r.errors || r.timeouts) throw new Error(`${side}: non2xx=${r.non2xx} errors=${r.errors} timeouts=${r.timeouts}`);
      if (round === 0) continue; // the warm-up
      stats[side].rps.push(r['2xx'] / r.duration);
      stats[side].cpu.push(((readCpuSeconds(server.pid) - cpuBefore) * 1e6) / r['2xx']);
    }
  }
  const list = (values: number[]) => values.map((value) => value.toFixed(0)).join(' ');
  for (const side of ['old', 'new'] as const) {
    console.log(`${load} ${side}: req/s ${list(stats[side].rps)} (median ${median(stats[side].rps).toFixed(0)}); CPU µs/request ${list(stats[side].cpu)} (median ${median(stats[side].cpu).toFixed(0)})`);
  }
  const perRound = stats.new.rps.map((value, i) => (value / stats.old.rps[i]!).toFixed(2)).join(' ');
  console.log(`${load} new ÷ old: req/s per round ${perRound}; median CPU per request ${(median(stats.new.cpu) / median(stats.old.cpu)).toFixed(2)}`);
} finally {
  await Promise.all(Object.values(servers).map((server) => server.stop()));
  await ws.cleanup();
}

/** As rest-list-assets seeds ours: the baseline's rows, straight into the running server's SQLite file. */
function seed(file: string): void {
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare('INSERT INTO assets (id, workspace, label, blob_id, blob_key, type, size, sha256, width, height, created_at, uploaded_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (const row of seedRows(BENCH_WORKSPACE, LISTED_ASSETS)) insert.run(row.id, row.workspace, row.label, row.blob_id, row.blob_key, row.type, row.size, row.sha256, row.width, row.height, row.created_at, row.uploaded_at, row.version);
    })();
  } finally {
    db.close();
  }
}
