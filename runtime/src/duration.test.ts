import test from 'ava';
import { parseDuration } from './duration.js';
import { UsageError } from './run-command.js';

test('seconds, minutes, hours and days', (t) => {
  t.is(parseDuration('30s'), 30);
  t.is(parseDuration('15m'), 900);
  t.is(parseDuration('1h'), 3600);
  t.is(parseDuration('7d'), 604_800);
});

for (const bad of ['', '1', 'h', '0s', '-1h', '1.5h', '1w', '1 h', '99999999d']) {
  test(`refuses ${JSON.stringify(bad)}`, (t) => {
    t.throws(() => parseDuration(bad), { instanceOf: UsageError, message: /--ttl: .* is not a duration/ });
  });
}
