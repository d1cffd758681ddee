import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { MAX_APPLY_ROUTES, validateApplyRoutes } from './apply-input.js';

function refusal(t: import('ava').ExecutionContext, input: unknown): SwitchyardError {
  const error = t.throws(() => validateApplyRoutes(input), { instanceOf: SwitchyardError });
  t.is(error.code, 'invalid_argument', error.message);
  return error;
}

test('a valid request: defaults for what is left out', (t) => {
  const valid = validateApplyRoutes({ routes: [{ method: 'get', path: '/a/:id', handler: 'a.show' }] });
  t.like(valid, { owner: '', prune: false, dryRun: false, expectedRevision: undefined });
  t.like(valid.routes[0], { method: 'GET', handler: 'a.show', middleware: [], owner: '', index: 0 });
  t.is(valid.routes[0]?.pattern.shape, '/a/:');
  t.like(validateApplyRoutes({ routes: [], owner: 'team', prune: true, dryRun: true, expectedRevision: 0 }), {
    owner: 'team',
    prune: true,
    dryRun: true,
    expectedRevision: 0,
  });
});

test('every bad entry and field is reported at once, each by its index; nothing else is needed to find them', (t) => {
  const error = refusal(t, {
    owner: 'team-a',
    routes: [
      { method: 'GET', path: '/ok', handler: 'ok' },
      { method: 'FETCH', path: 'x', handler: '' },
      42,
      { method: 'GET', path: '/m', handler: 'h', middleware: ['a', 'a'] },
      { method: 'GET', path: '/o', handler: 'h', owner: 'team-b' },
      null,
      { method: 'GET', path: '/p', handler: 'h', owner: 'team-a' },
      { method: 'GET', path: '/q', handler: 'h', owner: ' bad' },
    ],
  });
  t.deepEqual(
    error.details.map((detail) => detail.field),
    [
      'routes[1].method',
      'routes[1].path',
      'routes[1].handler',
      'routes[2]',
      'routes[3].middleware[1]',
      'routes[4].owner',
      'routes[5]',
      'routes[7].owner',
    ],
  );
  t.is(error.details[3]?.reason, 'must be an object');
  t.is(error.details[5]?.reason, 'must be the apply\'s owner ("team-a") or left out');
  t.regex(error.message, /^invalid apply: routes\[1\]\.method: .*\(and 5 more\)$/);
});

test('bad top-level fields are reported together with bad entries', (t) => {
  const error = refusal(t, { owner: 7, prune: 'yes', dryRun: 1, expectedRevision: -1, routes: [{ method: 'GET' }] });
  t.deepEqual(
    error.details.map((detail) => detail.field),
    ['owner', 'prune', 'dryRun', 'expectedRevision', 'routes[0].path', 'routes[0].handler'],
  );
});

test('routes must be an array of at most MAX_APPLY_ROUTES; the request an object', (t) => {
  t.deepEqual(refusal(t, {}).details, [{ field: 'routes', reason: 'must be an array of routes' }]);
  t.deepEqual(refusal(t, { routes: {} }).details, [{ field: 'routes', reason: 'must be an array of routes' }]);
  const many = Array.from({ length: MAX_APPLY_ROUTES + 1 }, (_, i) => ({ method: 'GET', path: `/r${i}`, handler: 'h' }));
  t.deepEqual(refusal(t, { routes: many }).details, [{ field: 'routes', reason: `must hold at most ${MAX_APPLY_ROUTES} routes` }]);
  t.is(validateApplyRoutes({ routes: many.slice(1) }).routes.length, MAX_APPLY_ROUTES);
  t.deepEqual(refusal(t, [1]).details, [{ field: 'request', reason: 'must be an object' }]);
  t.deepEqual(refusal(t, { routes: [], expectedRevision: 1.5 }).details, [
    { field: 'expectedRevision', reason: 'must be a non-negative whole number' },
  ]);
});
