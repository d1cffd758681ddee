#!/usr/bin/env node
// `npm test` and the tier scripts: runs ava with the TAP reporter, tier by tier (test/tiers.mjs),
// passes its output through and ends with the plain `N passed, N failed, N skipped` line that CI
// and the contract expect.
//
//   node scripts/run-tests.mjs                     every tier: unit, then e2e and heavy in one pool
//                                                  (heavy files first), then timing alone
//   node scripts/run-tests.mjs --tier unit         one tier (repeatable: --tier e2e --tier heavy)
//   node scripts/run-tests.mjs FILE... [AVA ARGS]  these files only, e.g. test/rest/routes.test.ts --match '*paging*'
//
// Every run is from the compiled test tree (scripts/build-test-tree.mjs: plain JavaScript, no
// loader), built or refreshed first.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { TIERS, testFiles, tierOf } from '../test/tiers.mjs';
import { buildTestTree } from './build-test-tree.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const AVA = `${ROOT}node_modules/ava/entrypoints/cli.mjs`;
/** Files at once in the shared pool: its files mostly wait on servers and sockets, so more than the 2 cores. */
const POOL_CONCURRENCY = Number(process.env.TEST_CONCURRENCY || 3);
/** How long ava's output may stay open after ava exited before what holds it is killed. */
const LEFT_BEHIND_GRACE_MS = 5_000;
/**
 * Ten minutes without a TAP line from a whole tier: far beyond any file's silent setup (the container build is
 * about two); an hour for `npm run soak`, whose single tests may run half of one.
 */
const SILENCE_LIMIT_MS = Number(process.env.TEST_SILENCE_LIMIT_MS || (process.env.SOAK ? 60 : 10) * 60_000);

/**
 * @returns {{ label: string, files: string[], concurrency?: number, nodeArguments?: string }[]}
 *   the ava runs to make, in order
 */
function plan(argv) {
  const tiers = [];
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] !== '--tier') continue;
    const tier = argv[i + 1];
    if (!TIERS.includes(tier)) {
      console.error(`unknown tier ${JSON.stringify(tier)}; the tiers are ${TIERS.join(', ')}`);
      process.exit(2);
    }
    tiers.push(tier);
  }
  if (argv.length > 0 && tiers.length === 0) return [{ label: 'chosen files', files: argv }];
  const all = testFiles(ROOT);
  const chosen = tiers.length > 0 ? tiers : TIERS;
  const filesOf = (...names) => all.filter((file) => names.includes(tierOf(file)) && chosen.includes(tierOf(file)));
  const runs = [
    // Preloaded guard: a unit test that starts a process fails and says which tier it belongs to.
    { label: 'unit', files: filesOf('unit'), nodeArguments: '--import=./test/support/unit-tier-guard.mjs' },
    // Heavy files first (ava.config.mjs sorts them so): the longest work starts first.
    { label: 'e2e and heavy', files: filesOf('e2e', 'heavy'), concurrency: POOL_CONCURRENCY },
    { label: 'timing, one file at a time', files: filesOf('timing'), concurrency: 1 },
  ];
  return runs.filter((run) => run.files.length > 0);
}

const counts = { passed: 0, failed: 0, skipped: 0 };
const started = Date.now();
/** Test file (its title prefix) → when its first and last lines went by: where the run's time goes. */
const fileSpans = new Map();

function noteFile(line) {
  const title = /^(?:not ok|ok) \d+ - (.*?)(?: # .*)?$/.exec(line)?.[1] ?? /^# (.* › (?:before|after)(?:\.always)? hook)/.exec(line)?.[1];
  if (title === undefined || !title.includes(' › ')) return;
  const file = title.split(' › ').slice(0, -1).join(' › ');
  const now = Date.now() - started;
  const span = fileSpans.get(file);
  if (span === undefined) fileSpans.set(file, { first: now, last: now });
  else span.last = now;
}

function count(line) {
  if (/^not ok \d+/.test(line)) {
    if (!/# TODO\b/.test(line)) counts.failed += 1;
  } else if (/^ok \d+/.test(line)) {
    if (/# SKIP\b/i.test(line)) counts.skipped += 1;
    else counts.passed += 1;
  }
}

/** Runs ava once; resolves its exit code. A crash that printed no failing test line counts as one failure. */
async function runAva({ label, files, concurrency, nodeArguments }) {
  const at = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(`# ${label}: ${files.length} file${files.length === 1 ? '' : 's'} (${at} s in)\n`);
  const built = await buildTestTree();
  process.stdout.write(`# test-build: ${built.transpiled} of ${built.sources} TypeScript files transpiled\n`);
  const args = [
    AVA,
    '--tap',
    '--config',
    'ava.compiled.config.mjs',
    ...(concurrency ? ['--concurrency', String(concurrency)] : []),
    ...(nodeArguments ? [`--node-arguments=${nodeArguments}`] : []),
    // A test file's compiled twin; other arguments (--match and its pattern) pass as they are.
    ...files.map((arg) => (/\.tsx?$/.test(arg) ? `test-build/${arg.replace(/^\.\//, '').replace(/\.tsx?$/, '.js')}` : arg)),
  ];
  // Its own process group: when ava ends, whatever it leaves behind (a worker whose test never ended, that
  // worker's children) is ended with it, and cannot hold ava's stdout open and this run with it.
  const ava = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  const failedBefore = counts.failed;
  const lines = createInterface({ input: ava.stdout });
  // Registered up front: readline closes by itself when ava's stdout ends, which may happen
  // before ava's process 'close' event.
  const linesClosed = new Promise((resolve) => lines.once('close', resolve));
  // A watchdog, not a measure: a pool silent this long is stuck (a test awaiting what never comes, and a
  // timeout that ava did not report), and the run ends with a failure rather than at CI's limit.
  let lastLine = Date.now();
  const watchdog = setInterval(() => {
    if (Date.now() - lastLine < SILENCE_LIMIT_MS) return;
    process.stdout.write(`# no test line for ${SILENCE_LIMIT_MS / 60_000} minutes: ava and what it started are killed\n`);
    clearInterval(watchdog);
    try {
      process.kill(-ava.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }, 10_000);
  ava.once('exit', () => clearInterval(watchdog));
  lines.on('line', (line) => {
    lastLine = Date.now();
    process.stdout.write(`${line}\n`);
    noteFile(line);
    count(line);
  });
  const code = await new Promise((resolve) => ava.on('exit', (exit, signal) => resolve(exit ?? (signal ? 1 : 0))));
  // What ava printed last is read to its end, unless something it left behind holds the pipe open.
  const heldOpen = await Promise.race([linesClosed.then(() => false), sleep(LEFT_BEHIND_GRACE_MS).then(() => true)]);
  try {
    process.kill(-ava.pid, 'SIGKILL');
  } catch {
    // The group is gone already: nothing was left behind.
  }
  if (heldOpen) {
    process.stdout.write('# ava ended, and processes it started were still running: they were killed\n');
    lines.close();
  }
  if (code !== 0 && counts.failed === failedBefore) {
    // ava 7's TAP reporter throws on a timeout before printing its line: the run says so rather than nothing.
    process.stdout.write(`# ava exited with ${code} without a failing test line (a timeout, or a crash): counted as one failure\n`);
    counts.failed += 1;
  }
  return code;
}

/** Resolves when file `path` exists: what CI runs beside the first tiers says so when it ends, and must not run beside the timing tier. */
async function whenExists(path) {
  if (!existsSync(path))
    process.stdout.write(`# the timing tier waits for ${path} (TEST_TIMING_AFTER): what runs beside the tests to end\n`);
  while (!existsSync(path)) await sleep(1_000);
}

let exitCode = 0;
for (const run of plan(process.argv.slice(2))) {
  if (run.label.startsWith('timing') && process.env.TEST_TIMING_AFTER) await whenExists(process.env.TEST_TIMING_AFTER);
  const code = await runAva(run);
  if (code !== 0) exitCode = code;
}

// The longest-running files (from their first line to their last; setup before a file's first
// line is not seen), as TAP comments, so a slow CI run says where its time went; every file's
// span goes to node_modules/.cache/switchyard-tests/spans.json.
const spans = [...fileSpans]
  .map(([file, { first, last }]) => ({ file, seconds: (last - first) / 1000, from: first / 1000 }))
  .sort((a, b) => b.seconds - a.seconds);
const cache = `${ROOT}node_modules/.cache/switchyard-tests`;
mkdirSync(cache, { recursive: true });
writeFileSync(`${cache}/spans.json`, `${JSON.stringify(spans, null, 1)}\n`);
const slowest = spans.slice(0, 15);
process.stdout.write(`# ${((Date.now() - started) / 1000).toFixed(0)} s in all; the longest files, first line to last:\n`);
for (const { file, seconds } of slowest) process.stdout.write(`#   ${seconds.toFixed(0).padStart(4)} s  ${file}\n`);
process.stdout.write(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
process.exit(exitCode !== 0 ? exitCode : counts.failed > 0 ? 1 : 0);
