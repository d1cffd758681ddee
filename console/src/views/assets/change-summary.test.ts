// The assets view's announcements of changes made elsewhere: one a second at
// most, a single change in its own words, a burst counted, this tab's own
// writes left out.
import test from 'ava';
import { createChangeSummary, summaryOf, type SeenChange } from './change-summary.js';
import { LocalWrites } from './local-writes.js';

const change = (kind: SeenChange['kind'], assetId: string): SeenChange => ({
  kind,
  assetId,
  sentence: `${assetId} was ${kind} elsewhere.`,
});

/** Timers that run only when told. */
function manualTimers() {
  const due: (() => void)[] = [];
  return {
    timers: {
      setTimeout: ((callback: () => void) => due.push(callback)) as unknown as typeof setTimeout,
      clearTimeout: (() => void due.splice(0)) as unknown as typeof clearTimeout,
    },
    pending: () => due.length,
    fire: () => due.splice(0).forEach((callback) => callback()),
  };
}

test('one change is told in its own words; several are counted by kind, in a fixed order', (t) => {
  t.is(summaryOf([]), '');
  t.is(summaryOf([change('added', 'a')]), 'a was added elsewhere.');
  t.is(
    summaryOf([change('deleted', 'a'), change('added', 'b'), change('deleted', 'c'), change('changed', 'd')]),
    '4 assets changed elsewhere: 1 added, 1 changed, 2 deleted.',
  );
});

test('a burst within the window is one announcement; the next change starts another window', (t) => {
  const said: string[] = [];
  const clock = manualTimers();
  const summary = createChangeSummary({ isLocal: () => false, say: (text) => said.push(text), timers: clock.timers });
  for (let n = 0; n < 100; n++) summary.add(change('added', `as_${n}`));
  t.is(clock.pending(), 1, 'one timer for the burst');
  t.deepEqual(said, []);
  clock.fire();
  t.deepEqual(said, ['100 assets changed elsewhere: 100 added.']);
  summary.add(change('deleted', 'as_1'));
  clock.fire();
  t.deepEqual(said.at(-1), 'as_1 was deleted elsewhere.');
});

test("this tab's own writes are left out, even when the watch reports them before the write's answer", async (t) => {
  let now = 0;
  const writes = new LocalWrites(() => now);
  const said: string[] = [];
  const clock = manualTimers();
  const summary = createChangeSummary({ isLocal: (id) => writes.has(id), say: (text) => said.push(text), timers: clock.timers });
  let answer!: () => void;
  const write = writes.around(['mine'], () => new Promise<void>((resolve) => (answer = resolve)), 'delete');
  t.true(writes.deleting('mine'));
  summary.add(change('deleted', 'mine'));
  summary.add(change('added', 'theirs'));
  answer();
  await write;
  t.false(writes.deleting('mine'));
  clock.fire();
  t.deepEqual(said, ['theirs was added elsewhere.']);
  now += 10_000;
  t.false(writes.has('mine'), 'long after its answer, a change to it is news again');
  summary.close();
});
