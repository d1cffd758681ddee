import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { MAX_MIDDLEWARE, MAX_NAME_LENGTH, parseHandler, parseMiddleware } from './names.js';

const accepted = [
  'auth',
  'auth.jwt',
  'rate-limit',
  'users:list',
  'Users.getById',
  '_internal',
  'v2',
  'a.b-c:d_e',
  'x'.repeat(MAX_NAME_LENGTH),
];
for (const name of accepted) {
  test(`accepts the name ${name.length > 20 ? `of ${name.length} characters` : name}`, (t) => {
    t.is(parseHandler(name), name);
    t.deepEqual(parseMiddleware([name]), [name]);
  });
}

const refused: [string, unknown][] = [
  ['empty', ''],
  ['a leading digit', '1auth'],
  ['a leading separator', '-x'],
  ['a trailing separator', 'auth.'],
  ['a doubled separator', 'auth..jwt'],
  ['a space', 'rate limit'],
  ['a slash', 'a/b'],
  ['non-ASCII', 'ünicode'],
  [`${MAX_NAME_LENGTH + 1} characters`, 'x'.repeat(MAX_NAME_LENGTH + 1)],
  ['a number', 42],
  ['null', null],
  ['an object', { name: 'auth' }],
];
for (const [label, value] of refused) {
  test(`refuses a handler with ${label}`, (t) => {
    const error = t.throws(() => parseHandler(value), { instanceOf: SwitchyardError });
    t.is(error.code, 'invalid_argument');
    t.is(error.details[0]?.field, 'handler');
  });
}

test('middleware is optional: missing or null is an empty list', (t) => {
  t.deepEqual(parseMiddleware(undefined), []);
  t.deepEqual(parseMiddleware(null), []);
  t.deepEqual(parseMiddleware([]), []);
});

test('middleware keeps its order and is copied', (t) => {
  const input = ['cors', 'auth.jwt', 'rate-limit'];
  const parsed = parseMiddleware(input);
  t.deepEqual(parsed, input);
  t.not(parsed, input);
});

for (const [label, value] of [
  ['a string', 'auth'],
  ['an object', { 0: 'auth' }],
  ['a number', 3],
] as const) {
  test(`refuses middleware that is ${label}, not an array`, (t) => {
    const error = t.throws(() => parseMiddleware(value), { instanceOf: SwitchyardError });
    t.is(error.code, 'invalid_argument');
    t.deepEqual(error.details, [{ field: 'middleware', reason: 'must be an array of names' }]);
  });
}

test(`accepts ${MAX_MIDDLEWARE} middleware and refuses ${MAX_MIDDLEWARE + 1}`, (t) => {
  const names = Array.from({ length: MAX_MIDDLEWARE + 1 }, (_, i) => `mw${i}`);
  t.is(parseMiddleware(names.slice(0, MAX_MIDDLEWARE)).length, MAX_MIDDLEWARE);
  const error = t.throws(() => parseMiddleware(names), { instanceOf: SwitchyardError });
  t.is(error.details[0]?.field, 'middleware');
});

test('refuses a duplicate middleware name, pointing at both entries', (t) => {
  const error = t.throws(() => parseMiddleware(['auth', 'log', 'auth']), { instanceOf: SwitchyardError });
  t.is(error.code, 'invalid_argument');
  t.deepEqual(error.details, [{ field: 'middleware[2]', reason: 'duplicate of middleware[0]' }]);
});

test('names are case-sensitive, so auth and Auth are not duplicates', (t) => {
  t.deepEqual(parseMiddleware(['auth', 'Auth']), ['auth', 'Auth']);
});

test('reports every bad middleware entry by index', (t) => {
  const error = t.throws(() => parseMiddleware(['ok', 7, 'bad name', 'ok']), { instanceOf: SwitchyardError });
  t.deepEqual(
    error.details.map((d) => d.field),
    ['middleware[1]', 'middleware[2]', 'middleware[3]'],
  );
});

test('refuses holes in a sparse middleware array', (t) => {
  const sparse = ['auth'];
  sparse[2] = 'log';
  const error = t.throws(() => parseMiddleware(sparse), { instanceOf: SwitchyardError });
  t.is(error.details[0]?.field, 'middleware[1]');
});
