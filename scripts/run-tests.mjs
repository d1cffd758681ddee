#!/usr/bin/env node
// `npm test`: runs ava with the TAP reporter, passes its output through and ends
// with the plain `N passed, N failed` line that CI and the contract expect.
// Extra arguments go to ava (e.g. `npm test -- lib/src/routes/*.test.ts`).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const ava = spawn(process.execPath, ['node_modules/ava/entrypoints/cli.mjs', '--tap', ...process.argv.slice(2)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});

let passed = 0;
let failed = 0;
let skipped = 0;
const lines = createInterface({ input: ava.stdout });
// Registered up front: readline closes by itself when ava's stdout ends, which
// may happen before ava's process 'close' event.
const linesClosed = new Promise((resolve) => lines.once('close', resolve));
/** Test file (its title prefix) → when its first and last lines went by: where the run's time goes. */
const started = Date.now();
const fileSpans = new Map();
const noteFile = (line) => {
  const title = /^(?:not ok|ok) \d+ - (.*?)(?: # .*)?$/.exec(line)?.[1] ?? /^# (.* › (?:before|after)(?:\.always)? hook)/.exec(line)?.[1];
  if (title === undefined || !title.includes(' › ')) return;
  const file = title.split(' › ').slice(0, -1).join(' › ');
  const now = Date.now() - started;
  const span = fileSpans.get(file);
  if (span === undefined) fileSpans.set(file, { first: now, last: now });
  else span.last = now;
};
lines.on('line', (line) => {
  process.stdout.write(`${line}\n`);
  noteFile(line);
  if (/^not ok \d+/.test(line)) {
    if (/# TODO\b/.test(line)) return;
    failed += 1;
  } else if (/^ok \d+/.test(line)) {
    if (/# SKIP\b/i.test(line)) skipped += 1;
    else passed += 1;
  }
});

const exitCode = await new Promise((resolve) => ava.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
await linesClosed;
// A crash that produced no failing test line still fails the run.
if (exitCode !== 0 && failed === 0) failed = 1;
// The longest-running files (from their first line to their last; setup before a file's first line
// is not seen), as TAP comments, so a slow CI run says where its time went.
const slowest = [...fileSpans]
  .map(([file, { first, last }]) => ({ file, seconds: (last - first) / 1000 }))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, 12);
process.stdout.write(`# ${((Date.now() - started) / 1000).toFixed(0)} s in all; the longest files, first line to last:\n`);
for (const { file, seconds } of slowest) process.stdout.write(`#   ${seconds.toFixed(0).padStart(4)} s  ${file}\n`);
process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(exitCode !== 0 ? exitCode : failed > 0 ? 1 : 0);
