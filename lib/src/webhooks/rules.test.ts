import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { afterAttempt, DISABLE_AFTER_FAILING_MS, failingTooLong, retryAfterMs } from './delivery-rules.js';
import { createAddressPolicy, parseCidr, resolveDestination, resolvingAtMost, webhookUrlOf, type ResolvedAddress } from './destination.js';
import { eventFiltersOf, matchesEvent } from './event-types.js';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE, parseRetrySchedule } from './retry-schedule.js';
import { webhookSettingsOf } from './webhook-settings.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const now = new Date('2026-01-01T00:00:00Z');

function refusal(t: import('ava').ExecutionContext, run: () => unknown): SwitchyardError {
  const error = t.throws(run);
  t.true(error instanceof SwitchyardError);
  return error as SwitchyardError;
}

test('event filters: exact types, prefix.* and *, each bad entry named; matching', (t) => {
  t.deepEqual(eventFiltersOf(['asset.*', 'route.created', '*']), ['asset.*', 'route.created', '*']);
  const bad = refusal(t, () => eventFiltersOf(['asset.*', 'asset.exploded', 'files.*', 3, 'asset.*']));
  t.is(bad.code, 'invalid_argument');
  t.deepEqual(
    bad.details.map((detail) => detail.field),
    ['events[1]', 'events[2]', 'events[3]', 'events[4]'],
  );
  t.is(refusal(t, () => eventFiltersOf([])).details[0]?.field, 'events');
  t.is(refusal(t, () => eventFiltersOf('asset.*')).code, 'invalid_argument');
  t.true(matchesEvent(['asset.*'], 'asset.replaced'));
  t.false(matchesEvent(['asset.*'], 'route.created'));
  t.true(matchesEvent(['*'], 'route.deleted'));
  t.true(matchesEvent(['route.deleted'], 'route.deleted'));
  t.false(matchesEvent(['route.deleted'], 'route.updated'));
  t.false(matchesEvent(['*', 'webhook.test'], 'webhook.test'), 'test events go only where asked');
});

test('the retry schedule: the default, units, refusals, frozen', (t) => {
  t.deepEqual(parseRetrySchedule(DEFAULT_WEBHOOK_RETRY_SCHEDULE), [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H]);
  t.deepEqual(parseRetrySchedule('1s, 2s,4s,250ms,1d'), [S, 2 * S, 4 * S, 250, 24 * H]);
  t.deepEqual(parseRetrySchedule(''), []);
  t.true(Object.isFrozen(parseRetrySchedule('1s')));
  for (const bad of ['5', '5x', '-1s', '1s,,2s', '8d', '1.5s'])
    t.is(refusal(t, () => parseRetrySchedule(bad)).details[0]?.field, 'WEBHOOK_RETRY_SCHEDULE', bad);
});

test('settings are read once, validated and frozen', (t) => {
  const settings = webhookSettingsOf({});
  t.is(settings.timeoutMs, 15_000);
  t.is(settings.retrySchedule.length, 9);
  t.deepEqual(settings.allowedNetworks, []);
  t.true(Object.isFrozen(settings));
  t.false(settings.addresses.allows('127.0.0.1'));
  const local = webhookSettingsOf({ retrySchedule: '1s,2s', timeoutMs: 500, allowedNetworks: '127.0.0.0/8, ::1' });
  t.deepEqual(local.allowedNetworks, ['127.0.0.0/8', '::1/128']);
  t.true(local.addresses.allows('127.0.0.1'));
  t.true(local.addresses.allows('::1'));
  t.false(local.addresses.allows('10.0.0.1'));
  t.is(refusal(t, () => webhookSettingsOf({ timeoutMs: 0 })).details[0]?.field, 'WEBHOOK_TIMEOUT_MS');
  t.is(refusal(t, () => webhookSettingsOf({ allowedNetworks: '10.0.0.0/33' })).details[0]?.field, 'WEBHOOK_ALLOWED_NETWORKS');
  t.is(refusal(t, () => parseCidr('example.com/8')).code, 'invalid_argument');
});

test('addresses: public ones pass; loopback, private, link-local, metadata, mapped and special ones are refused unless allowed', (t) => {
  const policy = createAddressPolicy();
  for (const ok of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) t.true(policy.allows(ok), ok);
  for (const no of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:7f00:1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    'not an address',
  ])
    t.false(policy.allows(no), no);
  const allowing = createAddressPolicy(['10.1.0.0/16']);
  t.true(allowing.allows('10.1.2.3'));
  t.false(allowing.allows('10.2.0.1'));
});

test('endpoint URLs: http(s) only, no credentials, IP literals judged when written', (t) => {
  const policy = createAddressPolicy(['127.0.0.0/8']);
  t.is(webhookUrlOf('https://hooks.example.com/in?x=1', policy), 'https://hooks.example.com/in?x=1');
  t.is(webhookUrlOf('http://127.0.0.1:8080/x', policy), 'http://127.0.0.1:8080/x');
  for (const [bad, reason] of [
    ['', /required/],
    ['not a url', /absolute/],
    ['ftp://example.com/', /http and https/],
    ['https://user:pass@example.com/', /credentials/],
    ['http://10.0.0.1/', /10\.0\.0\.1 is not a public address/],
    ['http://169.254.169.254/latest/meta-data', /not a public address/],
    ['http://[::1]/', /::1 is not a public address/],
    [`https://example.com/${'a'.repeat(2100)}`, /2048/],
  ] as const) {
    const error = refusal(t, () => webhookUrlOf(bad, policy));
    t.is(error.code, 'invalid_argument');
    t.is(error.details[0]?.field, 'url');
    t.regex(error.details[0]?.reason ?? '', reason, bad);
  }
});

test('destinations are resolved, then every answer is checked: a name mapped to a private address is refused', async (t) => {
  const policy = createAddressPolicy(['127.0.0.0/8']);
  const names: Record<string, string[]> = {
    'inside.test': ['10.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'mixed.test': ['127.0.0.1', '10.0.0.1'],
    'loop.test': ['127.0.0.2'],
  };
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    return (names[host] ?? []).map((address) => ({ address, family: 4 }));
  };
  for (const host of ['inside.test', 'metadata.test', 'mixed.test']) {
    const error = await t.throwsAsync(resolveDestination(new URL(`http://${host}/`), policy, resolve));
    t.is((error as SwitchyardError).code, 'permission_denied');
    t.regex(error?.message ?? '', /destination refused/);
  }
  t.deepEqual(await resolveDestination(new URL('http://loop.test:9/'), policy, resolve), { address: '127.0.0.2', family: 4 });
  t.deepEqual(await resolveDestination(new URL('http://127.0.0.3/'), policy, resolve), { address: '127.0.0.3', family: 4 });
  t.false(asked.includes('127.0.0.3'), 'an IP literal is not resolved');
  const unresolved = await t.throwsAsync<SwitchyardError>(resolveDestination(new URL('http://nowhere.test/'), policy, resolve));
  t.is(unresolved?.code, 'unavailable');
});

test('after an attempt: 2xx succeeds, 410 fails and disables, others wait the schedule, 429/503 wait Retry-After, the spent schedule fails', (t) => {
  const schedule = [5 * S, 5 * M];
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const verdict = (statusCode: number, tries: number, retryAfter?: string) => {
    const v = afterAttempt({ statusCode, retryAfter }, tries, schedule, now);
    return [v.status, v.tries, v.nextAttemptAt?.toISOString(), v.disableEndpoint];
  };
  t.deepEqual(verdict(204, 0), ['succeeded', 1, undefined, false]);
  t.deepEqual(verdict(500, 0), ['pending', 1, at(5 * S), false]);
  t.deepEqual(verdict(0, 1), ['pending', 2, at(5 * M), false]);
  t.deepEqual(verdict(500, 2), ['failed', 3, undefined, false]);
  t.deepEqual(verdict(302, 0), ['pending', 1, at(5 * S), false], 'a redirect is a failure, never followed');
  t.deepEqual(verdict(410, 0), ['failed', 1, undefined, true]);
  t.deepEqual(verdict(429, 0, '3'), ['pending', 1, at(3 * S), false]);
  t.deepEqual(verdict(503, 1, 'Thu, 01 Jan 2026 00:01:00 GMT'), ['pending', 2, at(M), false]);
  t.deepEqual(verdict(500, 0, '3'), ['pending', 1, at(5 * S), false], 'Retry-After counts only on 429 and 503');
  t.deepEqual(verdict(429, 2, '3'), ['failed', 3, undefined, false], 'nor past the schedule');
  t.is(retryAfterMs('garbage', now), undefined);
  t.is(retryAfterMs('999999999', now), 24 * H);
  t.false(failingTooLong(undefined, now));
  t.false(failingTooLong(new Date(now.getTime() - DISABLE_AFTER_FAILING_MS + 1), now));
  t.true(failingTooLong(new Date(now.getTime() - DISABLE_AFTER_FAILING_MS), now));
});

test('system lookups run at most two at a time, the rest in order; a failed lookup frees its place', async (t) => {
  const started: string[] = [];
  const pending = new Map<string, { answer: () => void; fail: () => void }>();
  const resolve = resolvingAtMost(2, (host) => {
    started.push(host);
    return new Promise<readonly ResolvedAddress[]>((answer, fail) =>
      pending.set(host, { answer: () => answer([{ address: '127.0.0.1', family: 4 }]), fail: () => fail(new Error(`${host} timed out`)) }),
    );
  });
  const turn = () => new Promise((next) => setImmediate(next));
  const calls = ['a', 'b', 'c', 'd', 'e'].map((host) => resolve(host));
  await turn();
  t.deepEqual(started, ['a', 'b'], 'two lookups at once, the others wait');
  pending.get('b')!.fail();
  await t.throwsAsync(calls[1]!, { message: 'b timed out' });
  await turn();
  t.deepEqual(started, ['a', 'b', 'c'], "the failed lookup's place goes to the next in line");
  pending.get('a')!.answer();
  pending.get('c')!.answer();
  t.deepEqual(await calls[0], [{ address: '127.0.0.1', family: 4 }]);
  await turn();
  t.deepEqual(started, ['a', 'b', 'c', 'd', 'e']);
  pending.get('d')!.answer();
  pending.get('e')!.answer();
  t.is((await Promise.all([calls[2], calls[3], calls[4]])).length, 3);
  const after = resolve('f');
  await turn();
  t.deepEqual(started.at(-1), 'f', 'with both places free, a new lookup starts at once');
  pending.get('f')!.answer();
  await after;
});

test('an address policy judges the same address the same way, also after more addresses than it remembers', (t) => {
  const policy = createAddressPolicy(['127.0.0.0/8']);
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 1_100; i++) {
      const octets = `${Math.floor(i / 256)}.${i % 256}`;
      t.false(policy.allows(`10.0.${octets}`), `10.0.${octets}`);
      t.true(policy.allows(`127.1.${octets}`), `127.1.${octets}`);
      t.true(policy.allows(`8.8.${octets}`), `8.8.${octets}`);
    }
  }
  t.false(policy.allows('::ffff:10.0.0.1'));
  t.true(policy.allows('::ffff:127.0.0.1'));
  t.false(policy.allows('not an address'));
});
