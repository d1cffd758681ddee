import test from 'ava';
import { SwitchyardError } from '@switchyard/core';
import { loadServiceConfig } from '../config.js';

test('defaults: a minute of upload idleness, 1000 calls per second per workspace in bursts of 2000', (t) => {
  const { limits } = loadServiceConfig({});
  t.deepEqual(limits, { uploadIdleTimeoutMs: 60_000, rateLimit: { ratePerSecond: 1000, burst: 2000 } });
  t.true(Object.isFrozen(limits) && Object.isFrozen(limits.rateLimit));
});

test('each variable is read; the burst defaults to twice the rate; 0 turns a limit off', (t) => {
  t.deepEqual(loadServiceConfig({ UPLOAD_IDLE_TIMEOUT_MS: '0', RATE_LIMIT_PER_SECOND: '5' }).limits, {
    uploadIdleTimeoutMs: 0,
    rateLimit: { ratePerSecond: 5, burst: 10 },
  });
  t.deepEqual(loadServiceConfig({ UPLOAD_IDLE_TIMEOUT_MS: '1500', RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_BURST: '3' }).limits, {
    uploadIdleTimeoutMs: 1500,
    rateLimit: { ratePerSecond: 0, burst: 3 },
  });
  t.is(loadServiceConfig({ RATE_LIMIT_PER_SECOND: '0' }).limits.rateLimit.burst, 1);
});

test('bad values are refused with their variable named, all at once', (t) => {
  const error = t.throws(
    () => loadServiceConfig({ UPLOAD_IDLE_TIMEOUT_MS: '-1', RATE_LIMIT_PER_SECOND: '1e3', RATE_LIMIT_BURST: '0', LOG_LEVEL: 'loud' }),
    {
      instanceOf: SwitchyardError,
    },
  );
  t.deepEqual(
    error?.details.map((detail) => detail.field),
    ['LOG_LEVEL', 'UPLOAD_IDLE_TIMEOUT_MS', 'RATE_LIMIT_PER_SECOND', 'RATE_LIMIT_BURST'],
  );
  t.regex(error?.message ?? '', /UPLOAD_IDLE_TIMEOUT_MS: "-1" is not a number of milliseconds/);
  t.regex(error?.message ?? '', /RATE_LIMIT_BURST: "0"/);
  t.throws(() => loadServiceConfig({ UPLOAD_IDLE_TIMEOUT_MS: '86400001' }), { message: /UPLOAD_IDLE_TIMEOUT_MS/ });
});
