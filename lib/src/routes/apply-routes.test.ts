import test from 'ava';
import { createPrincipal } from '../auth/principal.js';
import { SwitchyardError } from '../errors.js';
import { createUlidSource } from '../ids.js';
import { MemoryRouteStore } from '../memory/memory-route-store.js';
import type { NewRouteRecord, RouteRecord, RouteScope } from '../ports/route-store.js';
import { MAX_APPLY_ATTEMPTS } from './apply-routes.js';
import { createRouteService } from './route-service.js';
import type { ApplyRoutesResult, RouteEvent } from './types.js';

const NOW = new Date('2025-06-07T08:09:10.111Z');
const alice = createPrincipal('alice', 'acme', ['routes:read', 'routes:write']);
const reader = createPrincipal('rita', 'acme', ['routes:read']);
const ids = createUlidSource();

/**
 * The memory store, with other writers: `meanwhile` runs right after each
 * snapshot is read (the whole table for a rollback, the scoped one for an
 * apply), as a write from another instance landing between a read and the
 * write would.
 */
class BusyStore extends MemoryRouteStore {
  meanwhile: ((store: MemoryRouteStore) => Promise<void>) | undefined;
  override async snapshot(workspace: string): Promise<{ readonly revision: number; readonly records: RouteRecord[] }> {
    const table = await super.snapshot(workspace);
    await this.meanwhile?.(this);
    return table;
  }
  override async scopedSnapshot(
    workspace: string,
    scope: RouteScope,
  ): Promise<{ readonly revision: number; readonly records: RouteRecord[] }> {
    const table = await super.scopedSnapshot(workspace, scope);
    await this.meanwhile?.(this);
    return table;
  }
}

function setup() {
  const store = new BusyStore();
  const service = createRouteService({ store, clock: { now: () => new Date(NOW) }, ids, watchPollMs: 10 });
  return { store, service };
}

const route = (method: string, path: string, handler = 'h') => ({ method, path, handler });

/** The result in words, order kept. */
function summary(result: ApplyRoutesResult): unknown {
  return {
    revision: result.revision,
    created: result.created.map((r) => `${r.method} ${r.path} ${r.handler} ${r.owner}`),
    updated: result.updated.map(
      ({ before, after }) => `${before.path} ${before.handler} -> ${after.path} ${after.handler} ${before.id === after.id}`,
    ),
    deleted: result.deleted.map((r) => `${r.method} ${r.path}`),
    unchanged: result.unchanged,
  };
}

async function refusal(
  t: import('ava').ExecutionContext,
  promise: Promise<unknown>,
  code: SwitchyardError['code'],
): Promise<SwitchyardError> {
  const error = await t.throwsAsync(promise, { instanceOf: SwitchyardError });
  t.is(error.code, code, error.message);
  return error;
}

function foreignRoute(workspace: string, path: string, owner: string): NewRouteRecord {
  return {
    id: ids.next('route'),
    workspace,
    method: 'GET',
    path,
    shape: path,
    middleware: [],
    handler: 'theirs',
    owner,
    createdAt: NOW,
    updatedAt: NOW,
  };
}

test('an apply writes creates, updates and deletes as one revision, logged with the caller and the owner', async (t) => {
  const { service, store } = setup();
  const kept = await service.create(alice, route('GET', '/kept/:id', 'kept'));
  const renamed = await service.create(alice, route('GET', '/old', 'old'));
  const param = await service.create(alice, route('GET', '/users/:id', 'users.show'));
  const result = await service.apply(alice, {
    routes: [
      route('GET', '/kept/:id', 'kept'),
      route('GET', '/new', 'old'),
      route('GET', '/users/:userId', 'users.show'),
      route('POST', '/users', 'users.create'),
    ],
    prune: true,
  });
  t.deepEqual(summary(result), {
    revision: 4,
    created: ['GET /new old ', 'POST /users users.create '],
    updated: ['/users/:id users.show -> /users/:userId users.show true'],
    deleted: ['GET /old'],
    unchanged: 1,
  });
  t.is(result.updated[0]?.after.id, param.id, 'an update keeps the id');
  t.is(await store.revision('acme'), 4, 'one revision for four changes');
  const changes = (await store.changesSince('acme', 3, 100)) ?? [];
  t.deepEqual(
    changes.map((change) => [change.revision, change.kind, change.actor, change.owner, change.time.toISOString()]),
    [
      [4, 'delete', 'alice', '', NOW.toISOString()],
      [4, 'update', 'alice', '', NOW.toISOString()],
      [4, 'create', 'alice', '', NOW.toISOString()],
      [4, 'create', 'alice', '', NOW.toISOString()],
    ],
  );
  t.deepEqual((await service.get(alice, kept.id)).revision, kept.revision, 'an unchanged route is not rewritten');
  await refusal(t, service.get(alice, renamed.id), 'not_found');
  t.is((await service.match(alice, { method: 'GET', path: '/users/42' })).params['userId'], '42', 'matching follows the new table');
});

test('the same table applied again makes no revision', async (t) => {
  const { service, store } = setup();
  const table = { owner: 'team-a', routes: [route('GET', '/a'), route('PUT', '/a/:id')], prune: true };
  const first = await service.apply(alice, table);
  t.is(first.revision, 1);
  const again = await service.apply(alice, table);
  t.deepEqual(summary(again), { revision: 1, created: [], updated: [], deleted: [], unchanged: 2 });
  t.is(await store.revision('acme'), 1);
});

test('a dry run answers the plan against the current revision and writes nothing', async (t) => {
  const { service, store } = setup();
  const existing = await service.create(alice, route('GET', '/a', 'old'));
  const plan = await service.apply(alice, { routes: [route('GET', '/a', 'new'), route('GET', '/b')], dryRun: true, prune: true });
  t.deepEqual(summary(plan), { revision: 1, created: ['GET /b h '], updated: ['/a old -> /a new true'], deleted: [], unchanged: 0 });
  t.is(plan.created[0]?.id, '', 'a route not yet created has no id');
  t.is(plan.updated[0]?.after.revision, 2, 'the revision the apply would write');
  t.is(await store.revision('acme'), 1);
  t.deepEqual(await service.get(alice, existing.id), existing);
  const applied = await service.apply(alice, { routes: [route('GET', '/a', 'new'), route('GET', '/b')], expectedRevision: plan.revision });
  t.deepEqual(summary(applied), { ...(summary(plan) as object), revision: 2 }, 'the apply does what its dry run said');
});

test('expectedRevision: a stale one is aborted naming the current revision, and nothing is written', async (t) => {
  const { service, store } = setup();
  await service.apply(alice, { routes: [route('GET', '/a')], expectedRevision: 0 });
  const stale = await refusal(t, service.apply(alice, { routes: [route('GET', '/b')], expectedRevision: 0 }), 'aborted');
  t.deepEqual(stale.details, [{ field: 'expectedRevision', reason: 'the route table is at revision 1' }]);
  await refusal(t, service.apply(alice, { routes: [route('GET', '/a')], expectedRevision: 5, dryRun: true }), 'aborted');
  t.is(await store.revision('acme'), 1);
  t.is(await store.count('acme'), 1);
  t.is((await service.apply(alice, { routes: [route('GET', '/b')], expectedRevision: 1 })).revision, 2);
});

test('two applies against one expectedRevision: one wins, the other is aborted with the current revision', async (t) => {
  const { service, store } = setup();
  const results = await Promise.allSettled([
    service.apply(alice, { routes: [route('GET', '/one')], expectedRevision: 0 }),
    service.apply(alice, { routes: [route('GET', '/two')], expectedRevision: 0 }),
  ]);
  t.deepEqual(
    results.map((result) => result.status),
    ['fulfilled', 'rejected'],
  );
  const loser = results[1]?.status === 'rejected' ? (results[1].reason as SwitchyardError) : undefined;
  t.is(loser?.code, 'aborted');
  t.deepEqual(loser?.details, [{ field: 'expectedRevision', reason: 'the route table is at revision 1' }]);
  t.deepEqual(
    (await store.list('acme')).map((record) => record.path),
    ['/one'],
  );
});

test('a write landing between the read and the write: without expectedRevision the apply plans again against it', async (t) => {
  const { service, store } = setup();
  let landed = false;
  store.meanwhile = async (inner) => {
    if (landed) return;
    landed = true;
    await inner.insert(foreignRoute('acme', '/theirs', ''));
  };
  const result = await service.apply(alice, { routes: [route('GET', '/mine')], prune: true });
  t.deepEqual(summary(result), { revision: 2, created: ['GET /mine h '], updated: [], deleted: ['GET /theirs'], unchanged: 0 });
  t.deepEqual(
    (await store.changesSince('acme', 0, 10))?.map(
      (change) => `${change.revision} ${change.kind} ${change.after?.path ?? change.before?.path}`,
    ),
    ['1 create /theirs', '2 delete /theirs', '2 create /mine'],
    'the plan made against revision 1, never the stale one',
  );
});

test('a write landing meanwhile that makes the plan impossible: the apply fails whole, nothing of it written', async (t) => {
  const { service, store } = setup();
  let landed = false;
  store.meanwhile = async (inner) => {
    if (landed) return;
    landed = true;
    await inner.insert(foreignRoute('acme', '/b', 'team-x'));
  };
  const error = await refusal(
    t,
    service.apply(alice, { routes: [route('GET', '/a'), route('GET', '/b'), route('GET', '/c')] }),
    'already_exists',
  );
  t.regex(error.message, /owner "team-x"/);
  t.deepEqual(
    (await store.list('acme')).map((record) => record.path),
    ['/b'],
    'only the other write',
  );
  t.is(await store.revision('acme'), 1);
});

test(`a table that keeps moving: after ${MAX_APPLY_ATTEMPTS} plans the apply is aborted, nothing of it written`, async (t) => {
  const { service, store } = setup();
  let writes = 0;
  store.meanwhile = async (inner) => {
    writes++;
    await inner.insert(foreignRoute('acme', `/busy${writes}`, 'team-x'));
  };
  await refusal(t, service.apply(alice, { routes: [route('GET', '/a')] }), 'aborted');
  t.is(writes, MAX_APPLY_ATTEMPTS);
  t.false((await store.list('acme')).some((record) => record.path === '/a'));
});

test('owners share a workspace: each apply prunes only its own; a single write by a third is left alone; collisions name the owner', async (t) => {
  const { service, store } = setup();
  await service.apply(alice, { owner: 'team-a', routes: [route('GET', '/a1'), route('GET', '/a2')] });
  await service.apply(alice, { owner: 'team-b', routes: [route('GET', '/b1')] });
  await service.create(alice, { ...route('GET', '/tool'), owner: 'tool' });
  await service.create(alice, route('GET', '/loose'));
  const pruneA = await service.apply(alice, { owner: 'team-a', routes: [route('GET', '/a1')], prune: true });
  t.deepEqual(
    pruneA.deleted.map((r) => r.path),
    ['/a2'],
  );
  const pruneB = await service.apply(alice, { owner: 'team-b', routes: [], prune: true });
  t.deepEqual(
    pruneB.deleted.map((r) => r.path),
    ['/b1'],
  );
  const collision = await refusal(
    t,
    service.apply(alice, { owner: 'team-b', routes: [route('GET', '/a1'), route('GET', '/tool')] }),
    'already_exists',
  );
  t.deepEqual(
    collision.details.map((detail) => detail.field),
    ['routes[0].path', 'routes[1].path'],
  );
  t.regex(collision.message, /owner "team-a", owner "tool"/);
  t.deepEqual((await store.list('acme')).map((record) => `${record.path} ${record.owner}`).sort(), ['/a1 team-a', '/loose ', '/tool tool']);
});

test('every bad entry is reported by index and nothing is written; the scope is checked first', async (t) => {
  const { service, store } = setup();
  await refusal(t, service.apply(reader, { routes: [route('GET', '/a')] }), 'permission_denied');
  const error = await refusal(
    t,
    service.apply(alice, { routes: [route('GET', '/ok'), route('GET', 'bad'), route('GET', '/ok2', ''), route('GET', '/ok')] }),
    'invalid_argument',
  );
  t.deepEqual(
    error.details.map((detail) => detail.field),
    ['routes[1].path', 'routes[2].handler', 'routes[3].path'],
  );
  t.is(await store.revision('acme'), 0);
});

test('a watcher receives every change of an applied revision, each at that revision', async (t) => {
  const { service } = setup();
  await service.create(alice, route('GET', '/before'));
  const stop = new AbortController();
  // Catches a hang; measures nothing.
  const deadline = setTimeout(() => stop.abort(), 10_000);
  const events: RouteEvent[] = [];
  const watching = (async () => {
    for await (const event of service.watch(alice, { sinceRevision: 1, signal: stop.signal })) {
      if (event.type !== 'heartbeat') events.push(event);
      if (events.length === 4) break;
    }
  })();
  await service.apply(alice, { routes: [route('GET', '/x'), route('GET', '/y'), route('GET', '/z')], prune: true });
  await watching;
  clearTimeout(deadline);
  t.deepEqual(
    events.map((event) => `${event.type} ${event.revision} ${event.type === 'upsert' ? event.route.path : ''}`),
    ['delete 2 ', 'upsert 2 /x', 'upsert 2 /y', 'upsert 2 /z'],
  );
});
