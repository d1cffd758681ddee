// `tsx bench/tools/compare-builds.ts <list|create|get|file|file304|grpc> <old cli/dist/bin.js> <new cli/dist/bin.js> [rounds] [seconds]`:
// two builds of `npm start` side by side under the rest-list-assets,
// rest-create-route, rest-get-asset, file-serve-16kib, peer-file-serve-304
// (the 16 KiB file with If-None-Match: its ETag, every answer 304) or grpc-get-asset
// load (GetAsset calls on the gRPC port), in alternating
// short rounds (the order flipping each round) after a warm-up, so a busy
// shared machine hits both alike. OLD_ENV and NEW_ENV (`NAME=value ...`) add
// settings to one side, to compare settings of one build. Prints
// req/s per round and server CPU per request for each, and new ÷ old. For a
// before/after of a change when `npm run bench` ratios move with the load:
// build the old commit in a copy of the tree (`git archive <commit> | tar -x`,
// node_modules copied with `cp -a`, `npx tsc -b`) and pass both CLIs.
import { randomBytes } from 'node:crypto';
import { median } from '../harness/stats.js';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import autocannon, { type Options } from 'autocannon';
import { seedRows } from '../baselines/baseline-store.js';
import { startChild } from '../harness/child-server.js';
import { readCpuSeconds } from '../harness/proc.js';
import { grpcAssetClient } from '../harness/grpc-load.js';
import { createWorkspace, seedAsset } from '../harness/servers.js';
import { BENCH_WORKSPACE } from '../harness/tokens.js';

const [load, oldCli, newCli, roundsArg, secondsArg] = process.argv.slice(2);
const LOADS = ['list', 'create', 'get', 'file', 'file304', 'grpc'];
if (!LOADS.includes(load ?? '') || !oldCli || !newCli)
  throw new Error(`usage: compare-builds <${LOADS.join('|')}> <old bin.js> <new bin.js> [rounds] [seconds]`);
const rounds = Number(roundsArg ?? 6);
const seconds = Number(secondsArg ?? 5);
const LISTED_ASSETS = 10_000;

const ws = await createWorkspace(`compare-${load}`);
const servers: Record<
  'old' | 'new',
  { url: string; pid: number; target: string; etag?: string; grpc?: ReturnType<typeof grpcAssetClient>; stop(): Promise<void> }
> = {} as never;
const sideEnv = (variable: string | undefined): Record<string, string> =>
  Object.fromEntries(
    (variable ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split(/=(.*)/s, 2) as [string, string]),
  );
try {
  for (const [side, cli] of [
    ['old', oldCli],
    ['new', newCli],
  ] as const) {
    const dataDir = join(ws.dir, side);
    const child = await startChild({
      args: [cli, 'start'],
      env: {
        HOST: '127.0.0.1',
        PORT: '0',
        GRPC_PORT: '0',
        DATA_DIR: dataDir,
        AUTH_SECRET: ws.secret,
        RATE_LIMIT_PER_SECOND: '0',
        METRICS_PORT: '0',
        ...sideEnv(process.env[side === 'old' ? 'OLD_ENV' : 'NEW_ENV']),
      },
      ready: /REST gateway\s+(http:\/\/\S+)\s+gRPC service\s+(\S+)/,
      logFile: `${dataDir}.log`,
    });
    const url = child.ready[1]!;
    const target =
      load === 'file' || load === 'file304' ? await seedFile(url, ws.token) : `${url}/v1/assets/${await seedAsset(url, ws.token)}`;
    const etag = load === 'file304' ? ((await fetch(target)).headers.get('etag') ?? undefined) : undefined;
    const grpc = load === 'grpc' ? grpcAssetClient(child.ready[2]!, ws.token) : undefined;
    await grpc?.seed();
    servers[side] = { url, pid: child.pid, target, etag, grpc, stop: async () => (grpc?.close(), child.stop()) };
    if (load === 'list') seed(join(dataDir, 'switchyard.sqlite'));
  }
  const auth = { authorization: `Bearer ${ws.token}` };
  let n = 0; // shared by both sides: every route created is distinct
  const options = ({ url, target, etag }: { url: string; target: string; etag?: string | undefined }): Options =>
    load === 'list'
      ? { url: `${url}/v1/assets?pageSize=50`, headers: auth }
      : load === 'get'
        ? { url: target, headers: auth }
        : load === 'file'
          ? { url: target }
          : load === 'file304'
            ? { url: target, headers: { 'if-none-match': etag! } }
            : {
                url,
                requests: [
                  {
                    method: 'POST',
                    path: '/v1/routing',
                    headers: { ...auth, 'content-type': 'application/json' },
                    setupRequest: (request) => ({
                      ...request,
                      body: JSON.stringify({ method: 'GET', path: `/bench/r${++n}/:id`, middleware: ['auth', 'log'], handler: 'showItem' }),
                    }),
                  },
                ],
              };
  const stats = { old: { rps: [] as number[], cpu: [] as number[] }, new: { rps: [] as number[], cpu: [] as number[] } };
  for (let round = 0; round <= rounds; round++) {
    for (const side of round % 2 ? (['new', 'old'] as const) : (['old', 'new'] as const)) {
      const server = servers[side];
      const cpuBefore = readCpuSeconds(server.pid);
      const duration = round === 0 ? 3 : seconds;
      let answered: number;
      let rps: number;
      if (server.grpc) {
        ({ requests: answered, rps } = await server.grpc.load(duration));
      } else {
        const r = await autocannon({ ...options(server), connections: 10, duration });
        const notModified = r.statusCodeStats['304']?.count ?? 0;
        if (r.non2xx !== (load === 'file304' ? notModified : 0) || r.errors || r.timeouts)
          throw new Error(`${side}: non2xx=${r.non2xx} errors=${r.errors} timeouts=${r.timeouts}`);
        answered = load === 'file304' ? notModified : r['2xx'];
        rps = answered / r.duration;
      }
      if (round === 0) continue; // the warm-up
      stats[side].rps.push(rps);
      stats[side].cpu.push(((readCpuSeconds(server.pid) - cpuBefore) * 1e6) / answered);
    }
  }
  const list = (values: number[]) => values.map((value) => value.toFixed(0)).join(' ');
  for (const side of ['old', 'new'] as const) {
    console.log(
      `${load} ${side}: req/s ${list(stats[side].rps)} (median ${median(stats[side].rps).toFixed(0)}); CPU µs/request ${list(stats[side].cpu)} (median ${median(stats[side].cpu).toFixed(0)})`,
    );
  }
  const perRound = stats.new.rps.map((value, i) => (value / stats.old.rps[i]!).toFixed(2)).join(' ');
  console.log(
    `${load} new ÷ old: req/s per round ${perRound}; median CPU per request ${(median(stats.new.cpu) / median(stats.old.cpu)).toFixed(2)}`,
  );
} finally {
  await Promise.all(Object.values(servers).map((server) => server.stop()));
  await ws.cleanup();
}

/** A 16 KiB file (as file-serve-16kib serves), uploaded through the API; its public url. */
async function seedFile(url: string, token: string): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([randomBytes(16 * 1024)], { type: 'application/octet-stream' }), 'bench.bin');
  const res = await fetch(`${url}/v1/assets/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as { url?: string };
  if (res.status !== 201 || !body.url) throw new Error(`uploading a file failed: ${res.status} ${JSON.stringify(body)}`);
  return body.url;
}

/** As rest-list-assets seeds ours: the baseline's rows, straight into the running server's SQLite file. */
function seed(file: string): void {
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare(
      'INSERT INTO assets (id, workspace, label, blob_id, blob_key, type, size, sha256, width, height, created_at, uploaded_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const row of seedRows(BENCH_WORKSPACE, LISTED_ASSETS))
        insert.run(
          row.id,
          row.workspace,
          row.label,
          row.blob_id,
          row.blob_key,
          row.type,
          row.size,
          row.sha256,
          row.width,
          row.height,
          row.created_at,
          row.uploaded_at,
          row.version,
        );
    })();
  } finally {
    db.close();
  }
}
