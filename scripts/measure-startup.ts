// Start-up time of `switchyard start`, compiled (what `npm start` runs) against
// the same sources through tsx, on fresh DATA_DIRs with free ports:
//
//   npx tsx scripts/measure-startup.ts [runs=7]
//
// Each run is timed from spawn to the "switchyard is running" banner (migrations
// applied, both ports bound), then stopped with SIGTERM. Runs alternate between
// the two, so machine noise hits both alike; prints the median and the fastest.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CLI_BIN, ROOT } from '../test/support/cli.js';

const runs = Number(process.argv[2] ?? 7);
/** The same CLI from its TypeScript sources: tsx, and the packages' `switchyard-source` export condition. */
const FROM_SOURCES = ['--import', 'tsx', '--conditions=switchyard-source', 'cli/src/bin.ts'];
const variants = { compiled: [join(ROOT, CLI_BIN)], tsx: FROM_SOURCES };

async function startOnce(args: readonly string[]): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-startup-'));
  const env = { ...process.env, PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', METRICS_PORT: 'off' };
  const started = performance.now();
  const child = spawn(process.execPath, [...args, 'start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  const ready = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('switchyard is running')) resolve(performance.now() - started);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready:\n${output}`)));
  });
  const ms = await ready;
  child.kill('SIGTERM');
  await once(child, 'exit');
  await rm(dataDir, { recursive: true, force: true });
  return ms;
}

const times: Record<string, number[]> = { compiled: [], tsx: [] };
await startOnce(variants.compiled); // warms the file cache for both
for (let i = 0; i < runs; i++) {
  for (const [name, args] of Object.entries(variants)) times[name]!.push(await startOnce(args));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [name, values] of Object.entries(times)) {
  console.log(
    `${name.padEnd(9)} median ${median(values).toFixed(0)} ms, fastest ${Math.min(...values).toFixed(0)} ms over ${values.length} runs`,
  );
}
console.log(`tsx ÷ compiled (medians): ${(median(times.tsx!) / median(times.compiled!)).toFixed(2)}`);
