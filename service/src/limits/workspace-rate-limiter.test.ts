import test from 'ava';
import { Metadata } from '@grpc/grpc-js';
import { SwitchyardError } from '@switchyard/core';
import { createWorkspaceRateLimiter, rateLimited } from './workspace-rate-limiter.js';

async function refusal(admitted: Promise<void>): Promise<SwitchyardError> {
  const error = await admitted.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof SwitchyardError)) throw new Error('admitted');
  return error;
}

test('each workspace has its own bucket; a refusal is resource_exhausted with the wait', async (t) => {
  let now = 0;
  const limiter = createWorkspaceRateLimiter({ ratePerSecond: 2, burst: 2 }, () => now);
  await limiter.admit('a');
  await limiter.admit('a');
  const error = await refusal(limiter.admit('a'));
  t.is(error.code, 'resource_exhausted');
  t.is(error.retryAfterMs, 500);
  t.regex(error.message, /2 calls per second/);
  await t.notThrowsAsync(limiter.admit('b'), 'another workspace is not affected');
  now = 499;
  t.is((await refusal(limiter.admit('a'))).code, 'resource_exhausted', 'refused at 499 ms, a ms before the next token');
  now = 500;
  await t.notThrowsAsync(limiter.admit('a'), 'admitted at 500 ms');
});

test('rate 0 turns the limit off', async (t) => {
  const limiter = createWorkspaceRateLimiter({ ratePerSecond: 0, burst: 0 }, () => 0);
  for (let i = 0; i < 10_000; i++) await limiter.admit('a');
  t.is(limiter.size(), 0);
});

test('calls made at once are charged at once: of two against a bucket of one, the second is refused', async (t) => {
  const limiter = createWorkspaceRateLimiter({ ratePerSecond: 1, burst: 1 }, () => 0);
  const first = limiter.admit('a');
  const second = limiter.admit('a');
  await t.notThrowsAsync(first);
  t.is((await refusal(second)).code, 'resource_exhausted');
});

test('refilled buckets are forgotten, so memory follows active workspaces', async (t) => {
  let now = 0;
  const limiter = createWorkspaceRateLimiter({ ratePerSecond: 100, burst: 10 }, () => now);
  for (let i = 0; i < 5000; i++) await limiter.admit(`ws-${i}`);
  now = 10_000;
  for (let i = 0; i < 5000; i++) await limiter.admit(`other-${i}`);
  // Without forgetting, 10,000 buckets; the 5,000 refilled ones were swept when the map doubled.
  t.true(limiter.size() <= 5000, `tracked ${limiter.size()}`);
});

test('rateLimited charges the verified workspace, and refuses nothing it did not verify', async (t) => {
  const limiter = createWorkspaceRateLimiter({ ratePerSecond: 1, burst: 1 }, () => 0);
  const principal = { subject: 's', workspace: 'w', scopes: new Set<never>() };
  const authenticate = rateLimited(async () => principal, limiter);
  t.is(await authenticate(new Metadata()), principal);
  const error = await t.throwsAsync(authenticate(new Metadata()), { instanceOf: SwitchyardError });
  t.is(error?.code, 'resource_exhausted');
  const unverified = rateLimited(async () => Promise.reject(new SwitchyardError('unauthenticated', 'no')), limiter);
  t.is((await t.throwsAsync(unverified(new Metadata()), { instanceOf: SwitchyardError }))?.code, 'unauthenticated');
});
