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
lines.on('line', (line) => {
  process.stdout.write(`${line}\n`);
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
process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(exitCode !== 0 ? exitCode : failed > 0 ? 1 : 0);
