import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { goalMet } from '../../bench/harness/goals.js';
import { result } from '../../bench/harness/results.js';
import { ROOT } from '../support/cli.js';

test("goalMet judges the ratio or ours against the first clause, in the figure's own unit", (t) => {
  t.true(goalMet(result('a', 90, 100, 'req/s', 'higher', { goal: 'ratio >= 0.8' })));
  t.false(goalMet(result('a', 70, 100, 'req/s', 'higher', { goal: 'ratio >= 0.8' })));
  t.true(goalMet(result('b', 80, 80, 'KiB', 'lower', { goal: 'ours <= 80 KiB (ratio <= 1)' })));
  t.false(goalMet(result('b', 81, 80, 'KiB', 'lower', { goal: 'ours <= 80 KiB (ratio <= 1)' })));
  t.false(goalMet(result('c', 64, 30, 'MiB', 'lower', { goal: 'ours < 64' })));
  t.true(goalMet(result('d', 19, 10, 'ms', 'lower', { goal: 'ratio < 2' })));
  t.is(goalMet(result('e', 1, 1, 'ms', 'lower')), undefined, 'no goal');
  t.is(goalMet(result('f', 1, 1, 'ms', 'lower', { goal: 'as fast as possible' })), undefined, 'not in the form');
});

test('every goal the benchmarks set is one goalMet can judge, so the history ledger never leaves one unjudged', async (t) => {
  const dir = join(ROOT, 'bench/benchmarks');
  const goals = new Set<string>();
  for (const name of await readdir(dir)) {
    for (const [, goal] of (await readFile(join(dir, name), 'utf8')).matchAll(/goal: '([^']*)'/g)) goals.add(goal!);
  }
  t.true(goals.size >= 10, `found the goals: ${[...goals].join(' | ')}`);
  for (const goal of goals) t.not(goalMet(result('g', 1, 1, 'x', 'higher', { goal })), undefined, goal);
});
