import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { MAX_OWNER_LENGTH, parseOwner } from './owner.js';

test('an owner is a plain name, kept as given; missing, null and "" are no owner', (t) => {
  for (const owner of [
    'payments',
    'team-payments',
    'Team_Payments',
    'terraform',
    'github-actions/deploy',
    'ops@example.com',
    'a:b.c',
    '9lives',
  ])
    t.is(parseOwner(owner), owner);
  t.is(parseOwner('x'.repeat(MAX_OWNER_LENGTH)), 'x'.repeat(MAX_OWNER_LENGTH));
  t.is(parseOwner(undefined), '');
  t.is(parseOwner(null), '');
  t.is(parseOwner(''), '');
});

test('a bad owner is invalid_argument naming the field and why', (t) => {
  const cases: [unknown, RegExp][] = [
    [42, /must be a string/],
    [['team'], /must be a string/],
    ['x'.repeat(MAX_OWNER_LENGTH + 1), /at most 64 characters/],
    [' payments', /must start with a letter or digit/],
    ['payments ', /must start with a letter or digit/],
    ['-payments', /must start with a letter or digit/],
    ['pay ments', /must start with a letter or digit/],
    ['payments\n', /must start with a letter or digit/],
    ['équipe', /must start with a letter or digit/],
  ];
  for (const [value, reason] of cases) {
    const error = t.throws(() => parseOwner(value, 'routes[2].owner'), { instanceOf: SwitchyardError }, JSON.stringify(value));
    t.is(error.code, 'invalid_argument');
    t.is(error.details[0]?.field, 'routes[2].owner');
    t.regex(error.details[0]?.reason ?? '', reason, JSON.stringify(value));
  }
});
