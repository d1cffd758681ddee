#!/usr/bin/env node
// `npm run flakes -- [--runs N] [--burners N] FILE...`: runs the chosen test files N times
// (default 5), one run after another, with `stress-ng --cpu 1` burning a core beside them the
// whole time, as a loaded CI machine would. A test that fails in any run is not steady enough to
// land: prove a new or changed test here before an issue is resolved (test/README.md).
// Installs Debian's stress-ng when it is missing. Ends with the usual counts line, over all runs.
import { spawn, spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values, positionals: files } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: 'string', default: '5' }, burners: { type: 'string', default: '1' } },
});
const runs = Number(values.runs);
const burners = Number(values.burners);
if (files.length === 0 || !Number.isInteger(runs) || runs < 1 || !Number.isInteger(burners) || burners < 0) {
  console.error('usage: npm run flakes -- [--runs N] [--burners N] test/some.test.ts [more files...]');
  process.exit(2);
}

/** Installs stress-ng with apt-get when it is not on the PATH (CI and developers run as root here). */
function ensureStressNg() {
  if (spawnSync('stress-ng', ['--version'], { stdio: 'ignore' }).status === 0) return;
  console.log('# installing stress-ng (apt-get install stress-ng)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '-q', 'stress-ng'], { stdio: 'ignore', env }).status === 0;
  if (install()) return;
  spawnSync('apt-get', ['update', '-q'], { stdio: 'ignore', env });
  if (!install()) {
    console.error('stress-ng could not be installed; the flake finder needs it to load the machine');
    process.exit(2);
  }
}

if (burners > 0) ensureStressNg();
const burner = burners > 0 ? spawn('stress-ng', ['--cpu', String(burners), '--quiet'], { stdio: 'ignore', detached: true }) : undefined;
const stopBurner = () => {
  if (burner?.pid !== undefined) {
    try {
      process.kill(-burner.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};
process.on('exit', stopBurner);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const totals = { passed: 0, failed: 0, skipped: 0 };
const failedRuns = [];
for (let run = 1; run <= runs; run += 1) {
  console.log(`# run ${run} of ${runs}, ${burners} core(s) burning beside it`);
  // The suite's own runner, so counts and skips are read the same way as in npm test.
  const child = spawnSync(process.execPath, ['scripts/run-tests.mjs', ...files], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const counts = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/m.exec(child.stdout ?? '');
  const failing = (child.stdout ?? '').split('\n').filter((line) => line.startsWith('not ok'));
  if (counts === null) {
    totals.failed += 1;
    failedRuns.push({ run, lines: ['the runner printed no counts line', ...failing] });
    continue;
  }
  totals.passed += Number(counts[1]);
  totals.failed += Number(counts[2]);
  totals.skipped += Number(counts[3] ?? 0);
  console.log(`#   ${counts[0]}`);
  if (child.status !== 0 || failing.length > 0) failedRuns.push({ run, lines: failing });
}
stopBurner();
for (const { run, lines } of failedRuns) for (const line of lines) console.log(`# run ${run}: ${line}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedRuns.length > 0 ? 1 : 0);
