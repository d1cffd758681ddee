import test from 'ava';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import { MemoryBlobStore, MemoryRouteStore } from '../memory/index.js';
import { blobStoreConformance, routeStoreConformance } from './index.js';

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('./fixtures/node-test-conformance.ts', import.meta.url));

/** Runs the fixture under `node --test` and reads its pass and fail counts from the TAP summary. */
async function nodeTest(broken: boolean): Promise<{ exitCode: number; pass: number; fail: number; output: string }> {
  const env = { ...process.env, BROKEN: broken ? '1' : '0', NODE_OPTIONS: '' };
  const args = ['--import=tsx', '--conditions=switchyard-source', '--test', '--test-reporter=tap', FIXTURE];
  const result = await run(process.execPath, args, { env }).then(
    ({ stdout }) => ({ exitCode: 0, stdout }),
    (error: { code?: number; stdout?: string }) => ({ exitCode: error.code ?? -1, stdout: error.stdout ?? '' }),
  );
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(result.stdout)?.[1] ?? NaN);
  return { exitCode: result.exitCode, pass: count('pass'), fail: count('fail'), output: result.stdout };
}

test('the suites run under node:test: a correct store passes every case', async (t) => {
  const result = await nodeTest(false);
  t.is(result.exitCode, 0, result.output);
  t.is(result.fail, 0);
  t.true(result.pass >= 5, `${result.pass} cases passed`);
});

test('under node:test a broken store fails: a store that ignores workspaces is caught', async (t) => {
  const result = await nodeTest(true);
  t.is(result.exitCode, 1, result.output);
  t.true(result.fail >= 1, `${result.fail} cases failed`);
  t.regex(result.output, /workspace-blind: RouteStore/);
});

test('under ava a failing case rejects with the assertion error and counts as a failure', async (t) => {
  type Case = { title: string; run: (...context: unknown[]) => Promise<void> };
  const cases: Case[] = [];
  routeStoreConformance((title, run) => cases.push({ title, run }), {
    name: 'memory',
    create: async () => ({ store: new MemoryRouteStore() }),
  });
  t.true(cases.length >= 5);
  let passes = 0;
  await cases[0]!.run({ pass: () => passes++ });
  t.is(passes, 1, 'a passing case tells a counting runner of its assertions');

  const broken: Case[] = [];
  const forgetful = Object.assign(new MemoryRouteStore(), { get: async () => undefined });
  routeStoreConformance((title, run) => broken.push({ title, run }), { name: 'forgetful', create: async () => ({ store: forgetful }) });
  const outcomes = await Promise.allSettled(broken.map((entry) => entry.run()));
  const failures = outcomes.filter((outcome) => outcome.status === 'rejected');
  t.true(failures.length >= 1, 'a store that loses what it stored fails');
  t.true(failures.every((failure) => failure.reason instanceof Error));
});

test('a blob store whose writeAt appends at the end instead of cutting the blob at the offset fails the writeAt cases', async (t) => {
  type Case = { title: string; run: (...context: unknown[]) => Promise<void> };
  class AppendingBlobStore extends MemoryBlobStore {
    override async writeAt(key: string, offset: number, body: Readable): Promise<void> {
      const size = (await this.stat(key))?.size ?? 0;
      return super.writeAt(key, offset > size ? offset : size, body);
    }
  }
  const cases: Case[] = [];
  blobStoreConformance((title, run) => cases.push({ title, run }), {
    name: 'appending',
    create: async () => ({ store: new AppendingBlobStore() }),
  });
  const writeAtCases = cases.filter((entry) => entry.title.includes('writeAt (optional)'));
  t.true(writeAtCases.length >= 3);
  const outcomes = await Promise.allSettled(writeAtCases.map((entry) => entry.run()));
  t.true(
    outcomes.some((outcome) => outcome.status === 'rejected'),
    'a store that keeps stale bytes past the offset is caught',
  );
});
