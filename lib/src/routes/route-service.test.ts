import test from 'ava';
import { createPrincipal } from '../auth/principal.js';
import { SwitchyardError } from '../errors.js';
import { createUlidSource } from '../ids.js';
import { MemoryRouteStore } from '../memory/memory-route-store.js';
import { createRouteService } from './route-service.js';
import type { CreateRouteInput, MatchRouteInput } from './types.js';

const NOW = new Date('2024-05-06T07:08:09.123Z');
const alice = createPrincipal('alice', 'acme', ['routes:read', 'routes:write']);

function setup() {
  const store = new MemoryRouteStore();
  const service = createRouteService({ store, clock: { now: () => new Date(NOW) }, ids: createUlidSource() });
  return { store, service };
}

/** Awaits a refusal and returns it, checking it is a SwitchyardError with the code. */
async function refusal(
  t: import('ava').ExecutionContext,
  promise: Promise<unknown>,
  code: SwitchyardError['code'],
): Promise<SwitchyardError> {
  const error = await t.throwsAsync(promise, { instanceOf: SwitchyardError });
  t.is(error.code, code, error.message);
  return error;
}

test('create returns the route with an id, upper-case method and the creation time', async (t) => {
  const { service, store } = setup();
  const route = await service.create(alice, {
    method: 'get',
    path: '/users/:id',
    middleware: ['auth.jwt', 'rate-limit'],
    handler: 'users.show',
  });
  t.regex(route.id, /^rt_[0-9a-z]{26}$/);
  t.like(route, { method: 'GET', path: '/users/:id', middleware: ['auth.jwt', 'rate-limit'], handler: 'users.show' });
  t.deepEqual(route.createdAt, NOW);
  t.false('workspace' in route || 'shape' in route);
  const stored = await store.get('acme', route.id);
  t.like(stored, { workspace: 'acme', shape: '/users/:', method: 'GET' });
});

test('middleware defaults to an empty list', async (t) => {
  const { service } = setup();
  t.deepEqual((await service.create(alice, { method: 'POST', path: '/users', handler: 'users.create' })).middleware, []);
});

test('get returns what create returned', async (t) => {
  const { service } = setup();
  const created = await service.create(alice, { method: 'PUT', path: '/users/:id', middleware: ['auth'], handler: 'users.update' });
  t.deepEqual(await service.get(alice, created.id), created);
});

test('the same method and shape in one workspace is already_exists', async (t) => {
  const { service } = setup();
  const first = await service.create(alice, { method: 'GET', path: '/users/:id', handler: 'a' });
  const taken = await refusal(t, service.create(alice, { method: 'get', path: '/users/:uid', handler: 'b' }), 'already_exists');
  t.regex(taken.message, new RegExp(`^route ${first.id} \\(GET /users/:id\\) already has`), 'the refusal names the route in the way');
  await refusal(t, service.create(alice, { method: 'GET', path: '/%75sers/:x', handler: 'c' }), 'already_exists');
});

test('another method, another shape or another workspace is not a duplicate', async (t) => {
  const { service } = setup();
  await service.create(alice, { method: 'GET', path: '/users/:id', handler: 'a' });
  await t.notThrowsAsync(service.create(alice, { method: 'DELETE', path: '/users/:id', handler: 'a' }));
  await t.notThrowsAsync(service.create(alice, { method: 'GET', path: '/users/*', handler: 'a' }));
  await t.notThrowsAsync(service.create(alice, { method: 'GET', path: '/users/me', handler: 'a' }));
  const bob = createPrincipal('bob', 'globex', ['routes:write']);
  await t.notThrowsAsync(service.create(bob, { method: 'GET', path: '/users/:id', handler: 'a' }));
});

test('create reports every bad field at once', async (t) => {
  const { service } = setup();
  const error = await refusal(
    t,
    service.create(alice, { method: 'BREW', path: 'users/', middleware: ['ok', 'bad name'], handler: '' }),
    'invalid_argument',
  );
  t.deepEqual(
    error.details.map((d) => d.field),
    ['method', 'path', 'middleware[1]', 'handler'],
  );
});

test('create refuses values of the wrong type from the network without crashing', async (t) => {
  const { service } = setup();
  const input = { method: 7, path: null, middleware: 'auth', handler: 42 } as unknown as CreateRouteInput;
  const error = await refusal(t, service.create(alice, input), 'invalid_argument');
  t.deepEqual(
    error.details.map((d) => d.field),
    ['method', 'path', 'middleware', 'handler'],
  );
  const missing = await refusal(t, service.create(alice, {} as CreateRouteInput), 'invalid_argument');
  t.deepEqual(
    missing.details.map((d) => d.field),
    ['method', 'path', 'handler'],
  );
  for (const notAnObject of [null, undefined, 'GET /x', ['GET', '/x']]) {
    await refusal(t, service.create(alice, notAnObject as unknown as CreateRouteInput), 'invalid_argument');
  }
});

test('each operation needs its scope', async (t) => {
  const { service } = setup();
  const created = await service.create(alice, { method: 'GET', path: '/x', handler: 'x' });
  const reader = createPrincipal('r', 'acme', ['routes:read']);
  const writer = createPrincipal('w', 'acme', ['routes:write', 'assets:read']);
  await refusal(t, service.create(reader, { method: 'GET', path: '/y', handler: 'y' }), 'permission_denied');
  await refusal(t, service.get(writer, created.id), 'permission_denied');
  await refusal(t, service.match(writer, { method: 'GET', path: '/x' }), 'permission_denied');
  t.is((await service.get(reader, created.id)).id, created.id);
});

test('the scope is checked before the input, so an unauthorised caller learns nothing', async (t) => {
  const { service } = setup();
  const nobody = createPrincipal('n', 'acme', []);
  await refusal(t, service.create(nobody, { method: 'BREW', path: '', handler: '' }), 'permission_denied');
  await refusal(t, service.get(nobody, 'not-an-id'), 'permission_denied');
});

test('get: a malformed id is invalid_argument, an unknown one not_found', async (t) => {
  const { service } = setup();
  for (const id of ['', 'rt_123', 'as_01hzy3m7k8q9r0s1t2v3w4x5y6', 'RT_01HZY3M7K8Q9R0S1T2V3W4X5Y6', 42]) {
    const error = await refusal(t, service.get(alice, id as string), 'invalid_argument');
    t.is(error.details[0]?.field, 'id');
  }
  await refusal(t, service.get(alice, createUlidSource().next('route')), 'not_found');
});

test("another workspace's route is not_found for get and match", async (t) => {
  const { service } = setup();
  const created = await service.create(alice, { method: 'GET', path: '/secret', handler: 'x' });
  const mallory = createPrincipal('mallory', 'evil', ['routes:read', 'routes:write']);
  await refusal(t, service.get(mallory, created.id), 'not_found');
  await refusal(t, service.match(mallory, { method: 'GET', path: '/secret' }), 'not_found');
});

test('match returns the most specific route with decoded params', async (t) => {
  const { service } = setup();
  await service.create(alice, { method: 'GET', path: '/users/:id', handler: 'users.show' });
  await service.create(alice, { method: 'GET', path: '/users/me', handler: 'users.me' });
  await service.create(alice, { method: 'GET', path: '/files/*', handler: 'files.get' });
  t.like(await service.match(alice, { method: 'GET', path: '/users/me' }), { route: { handler: 'users.me' }, params: {} });
  t.like(await service.match(alice, { method: 'get', path: '/users/a%20b' }), {
    route: { handler: 'users.show', method: 'GET' },
    params: { id: 'a b' },
  });
  t.deepEqual((await service.match(alice, { method: 'GET', path: '/files/a/b.png' })).params, { '*': 'a/b.png' });
  t.is((await service.match(alice, { method: 'HEAD', path: '/users/7' })).route.handler, 'users.show');
  await refusal(t, service.match(alice, { method: 'POST', path: '/users/7' }), 'not_found');
  await refusal(t, service.match(alice, { method: 'GET', path: '/users' }), 'not_found');
});

test('match sees a route created after an earlier match (cache invalidation)', async (t) => {
  const { service } = setup();
  await service.create(alice, { method: 'GET', path: '/users/:id', handler: 'users.show' });
  t.is((await service.match(alice, { method: 'GET', path: '/users/me' })).route.handler, 'users.show');
  await service.create(alice, { method: 'GET', path: '/users/me', handler: 'users.me' });
  t.is((await service.match(alice, { method: 'GET', path: '/users/me' })).route.handler, 'users.me');
  await refusal(t, service.match(alice, { method: 'GET', path: '/posts' }), 'not_found');
  await service.create(alice, { method: 'GET', path: '/posts', handler: 'posts.list' });
  t.is((await service.match(alice, { method: 'GET', path: '/posts' })).route.handler, 'posts.list');
});

test('a caller cannot change a cached route through a match result', async (t) => {
  const { service } = setup();
  await service.create(alice, { method: 'GET', path: '/x', handler: 'x' });
  const first = await service.match(alice, { method: 'GET', path: '/x' });
  first.route.createdAt.setTime(0);
  t.throws(() => (first.route.middleware as string[]).push('evil'));
  t.deepEqual((await service.match(alice, { method: 'GET', path: '/x' })).route.createdAt, NOW);
});

test('match refuses a bad method and path together, and wrong types', async (t) => {
  const { service } = setup();
  const error = await refusal(t, service.match(alice, { method: 'BREW', path: '/x?y=1' }), 'invalid_argument');
  t.deepEqual(
    error.details.map((d) => d.field),
    ['method', 'path'],
  );
  await refusal(t, service.match(alice, { method: 'GET', path: '/users/%zz' }), 'invalid_argument');
  await refusal(t, service.match(alice, { method: ['GET'], path: 5 } as unknown as MatchRouteInput), 'invalid_argument');
  await refusal(t, service.match(alice, null as unknown as MatchRouteInput), 'invalid_argument');
});

test('createdAt keeps whole milliseconds from the clock', async (t) => {
  const store = new MemoryRouteStore();
  const service = createRouteService({ store, clock: { now: () => new Date(1_700_000_000_123.9) }, ids: createUlidSource() });
  const route = await service.create(alice, { method: 'GET', path: '/', handler: 'root' });
  t.is(route.createdAt.getTime(), 1_700_000_000_123);
});

test('single-route writes may set an owner; the change log names the route, its owner and the caller', async (t) => {
  const { service, store } = setup();
  const created = await service.create(alice, { method: 'GET', path: '/pay', handler: 'pay.show', owner: 'team-payments' });
  t.is(created.owner, 'team-payments');
  t.is((await service.create(alice, { method: 'GET', path: '/free', handler: 'free' })).owner, '', 'no owner: ""');
  const kept = await service.update(alice, created.id, { handler: 'pay.show2' });
  t.is(kept.owner, 'team-payments', 'an update without owner keeps it');
  t.is((await service.update(alice, created.id, { owner: '' })).owner, '', '"" removes it');
  await service.delete(alice, created.id);
  const changes = (await store.changesSince('acme', 0, 10)) ?? [];
  t.deepEqual(
    changes.map((change) => [
      change.kind,
      change.owner,
      change.actor,
      change.time.toISOString(),
      change.before?.owner,
      change.after?.owner,
    ]),
    [
      ['create', 'team-payments', 'alice', NOW.toISOString(), undefined, 'team-payments'],
      ['create', '', 'alice', NOW.toISOString(), undefined, ''],
      ['update', 'team-payments', 'alice', NOW.toISOString(), 'team-payments', 'team-payments'],
      ['update', '', 'alice', NOW.toISOString(), 'team-payments', ''],
      ['delete', '', 'alice', NOW.toISOString(), '', undefined],
    ],
  );
});

test('a bad owner is invalid_argument with the other bad fields, and nothing is written', async (t) => {
  const { service, store } = setup();
  const error = await refusal(t, service.create(alice, { method: 'GET', path: 'nope', handler: 'h', owner: ' team' }), 'invalid_argument');
  t.deepEqual(
    error.details.map((detail) => detail.field),
    ['path', 'owner'],
  );
  const route = await service.create(alice, { method: 'GET', path: '/a', handler: 'h' });
  const typed = await refusal(t, service.update(alice, route.id, { owner: 'x'.repeat(65) }), 'invalid_argument');
  t.deepEqual(typed.details, [{ field: 'owner', reason: 'must be at most 64 characters' }]);
  t.is(await store.revision('acme'), 1);
});
