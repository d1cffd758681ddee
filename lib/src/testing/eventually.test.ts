import test from 'ava';
import { eventually } from './eventually.js';

test('eventually resolves with the first truthy value, trying again after falsy values and throws', async (t) => {
  let attempts = 0;
  const value = await eventually(
    () => {
      attempts += 1;
      if (attempts === 1) throw new Error('not yet');
      return attempts >= 3 && { attempts };
    },
    { timeout: 10_000, interval: 1 },
  );
  t.deepEqual(value, { attempts: 3 });
  t.is(attempts, 3, 'no attempt after it held');
});

test('eventually fails at its deadline, saying what was awaited and the last error', async (t) => {
  let attempts = 0;
  const error = await t.throwsAsync(
    eventually(
      async () => {
        attempts += 1;
        throw new Error(`attempt ${attempts} failed`);
      },
      { timeout: 50, interval: 5, message: 'the answer' },
    ),
  );
  t.true(attempts > 1, 'it tried more than once');
  t.is(error?.message, `the answer: not reached within 50 ms; last: attempt ${attempts} failed`);
  t.is((error?.cause as Error).message, `attempt ${attempts} failed`);
});

test('eventually reports a check that kept returning a falsy value', async (t) => {
  await t.throwsAsync(
    eventually(() => 0, { timeout: 20, interval: 5 }),
    { message: 'the check: not reached within 20 ms; last: the check returned 0' },
  );
});
