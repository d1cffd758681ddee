import test from 'ava';
import { decodeJwt } from 'jose';
import { isSwitchyardError } from '../errors.js';
import { signToken, type SignTokenOptions } from './tokens.js';
import { NOW, NOW_SECONDS, SECRET } from './token-test-support.js';

test('claims are exactly sub, workspace, scope, iat, exp', async (t) => {
  const token = await signToken(SECRET, {
    workspace: 'w1',
    subject: 'ci-bot',
    scopes: ['assets:read', 'routes:read'],
    ttlSeconds: 90,
    now: NOW,
  });
  t.deepEqual(decodeJwt(token), {
    sub: 'ci-bot',
    workspace: 'w1',
    scope: 'assets:read routes:read',
    iat: NOW_SECONDS,
    exp: NOW_SECONDS + 90,
  });
});

test('scopes may be a space-separated string; repeats collapse; an empty list grants nothing', async (t) => {
  t.is(decodeJwt(await signToken(SECRET, { workspace: 'w1', scopes: ' routes:write  routes:write ' })).scope, 'routes:write');
  t.is(decodeJwt(await signToken(SECRET, { workspace: 'w1', scopes: [] })).scope, '');
});

test('iat is whole seconds even when now has milliseconds', async (t) => {
  const payload = decodeJwt(await signToken(SECRET, { workspace: 'w1', now: new Date(NOW.getTime() + 999) }));
  t.is(payload.iat, NOW_SECONDS);
});

const invalid: Array<[string, Partial<SignTokenOptions>, string]> = [
  ['a bad workspace', { workspace: 'no/slash' }, 'workspace'],
  ['an empty workspace', { workspace: '' }, 'workspace'],
  ['an empty subject', { subject: '' }, 'subject'],
  ['an unknown scope', { scopes: 'routes:read admin' }, 'scopes'],
  ['a zero ttl', { ttlSeconds: 0 }, 'ttlSeconds'],
  ['a negative ttl', { ttlSeconds: -5 }, 'ttlSeconds'],
  ['a fractional ttl', { ttlSeconds: 1.5 }, 'ttlSeconds'],
  ['an invalid date', { now: new Date('nope') }, 'now'],
];

for (const [title, overrides, field] of invalid) {
  test(`refuses ${title} with invalid_argument on ${field}`, async (t) => {
    const error = await t.throwsAsync(signToken(SECRET, { workspace: 'w1', ...overrides }));
    t.true(isSwitchyardError(error) && error.code === 'invalid_argument', String(error));
    t.is(isSwitchyardError(error) ? error.details[0]?.field : undefined, field);
  });
}

test('refuses a short secret without echoing it', async (t) => {
  const error = await t.throwsAsync(signToken('tiny-secret', { workspace: 'w1' }));
  t.true(isSwitchyardError(error) && error.code === 'invalid_argument');
  t.false(error.message.includes('tiny-secret'));
});
