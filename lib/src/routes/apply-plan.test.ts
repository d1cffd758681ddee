import test from 'ava';
import { SwitchyardError } from '../errors.js';
import type { RouteRecord } from '../ports/route-store.js';
import { validateApplyRoutes } from './apply-input.js';
import { isEmptyPlan, planApply, type RoutePlan } from './apply-plan.js';
import { parsePathPattern } from './path-pattern.js';

const T0 = new Date('2025-01-02T03:04:05.006Z');
let serial = 0;

/** A stored route of the workspace. */
function stored(method: string, path: string, fields: { handler?: string; middleware?: string[]; owner?: string } = {}): RouteRecord {
  serial++;
  return {
    id: `rt_${String(serial).padStart(26, '0')}`,
    workspace: 'acme',
    method,
    path,
    shape: parsePathPattern(path).shape,
    middleware: fields.middleware ?? [],
    handler: fields.handler ?? 'h',
    owner: fields.owner ?? '',
    createdAt: T0,
    updatedAt: T0,
    revision: serial,
  };
}

function plan(current: readonly RouteRecord[], request: Record<string, unknown>): RoutePlan {
  const valid = validateApplyRoutes(request);
  return planApply(current, valid.routes, valid);
}

/** The plan in words: `+ GET /a`, `~ GET /a (rt_…)`, `- GET /a (rt_…)`, `= GET /a`. */
function summary(result: RoutePlan): string[] {
  return [
    ...result.delete.map((record) => `- ${record.method} ${record.path} ${record.id}`),
    ...result.update.map(
      ({ current, desired }) => `~ ${current.method} ${current.path} -> ${desired.pattern.source} ${desired.handler} ${current.id}`,
    ),
    ...result.create.map((route) => `+ ${route.method} ${route.pattern.source} ${route.handler}`),
    ...result.unchanged.map((record) => `= ${record.method} ${record.path}`),
  ];
}

/** The table after a plan, as a store would write it. */
function applied(current: readonly RouteRecord[], result: RoutePlan): RouteRecord[] {
  const gone = new Set(result.delete.map((record) => record.id));
  const next = current.filter((record) => !gone.has(record.id));
  for (const { current: before, desired } of result.update) {
    const at = next.findIndex((record) => record.id === before.id);
    next[at] = { ...before, path: desired.pattern.source, handler: desired.handler, middleware: desired.middleware };
  }
  for (const route of result.create) next.push(stored(route.method, route.pattern.source, route));
  return next;
}

const users = stored('GET', '/users/:id', { handler: 'users.show', middleware: ['auth'] });
const posts = stored('POST', '/posts', { handler: 'posts.create' });
const teamA = stored('GET', '/a', { owner: 'team-a' });
const teamB = stored('GET', '/b', { owner: 'team-b' });
const table = [users, posts, teamA, teamB];
const route = (method: string, path: string, handler = 'h', middleware?: string[]) => ({ method, path, handler, middleware });

const cases: { title: string; current: RouteRecord[]; request: Record<string, unknown>; expected: string[] }[] = [
  {
    title: 'an empty table: every desired route is a create',
    current: [],
    request: { routes: [route('get', '/x'), route('PUT', '/x')] },
    expected: ['+ GET /x h', '+ PUT /x h'],
  },
  {
    title: 'the same routes: unchanged, nothing planned',
    current: table,
    request: { routes: [route('GET', '/users/:id', 'users.show', ['auth']), route('POST', '/posts', 'posts.create')] },
    expected: ['= GET /users/:id', '= POST /posts'],
  },
  {
    title: 'a new handler is an update of the same route',
    current: table,
    request: { routes: [route('GET', '/users/:id', 'users.get', ['auth'])] },
    expected: [`~ GET /users/:id -> /users/:id users.get ${users.id}`],
  },
  {
    title: 'new middleware is an update',
    current: table,
    request: { routes: [route('GET', '/users/:id', 'users.show', ['auth', 'audit'])] },
    expected: [`~ GET /users/:id -> /users/:id users.show ${users.id}`],
  },
  {
    title: 'a renamed parameter keeps the shape: an update, not a delete and create',
    current: table,
    request: { routes: [route('GET', '/users/:userId', 'users.show', ['auth'])], prune: true },
    expected: [`- POST /posts ${posts.id}`, `~ GET /users/:id -> /users/:userId users.show ${users.id}`],
  },
  {
    title: 'a renamed shape with prune: delete and create',
    current: table,
    request: { routes: [route('GET', '/people/:id', 'users.show', ['auth']), route('POST', '/posts', 'posts.create')], prune: true },
    expected: [`- GET /users/:id ${users.id}`, '+ GET /people/:id users.show', '= POST /posts'],
  },
  {
    title: 'a renamed shape without prune: only the create (an apply without prune never deletes)',
    current: table,
    request: { routes: [route('GET', '/people/:id', 'users.show', ['auth'])] },
    expected: ['+ GET /people/:id users.show'],
  },
  {
    title: 'another method is another route',
    current: table,
    request: { routes: [route('HEAD', '/users/:id', 'users.show')] },
    expected: ['+ HEAD /users/:id users.show'],
  },
  {
    title: "an owner's apply plans only its own routes: prune deletes team-a's, never team-b's or the unowned",
    current: table,
    request: { owner: 'team-a', routes: [route('GET', '/a2')], prune: true },
    expected: [`- GET /a ${teamA.id}`, '+ GET /a2 h'],
  },
  {
    title: 'an apply without owner manages the unowned routes only',
    current: table,
    request: { routes: [], prune: true },
    expected: [`- GET /users/:id ${users.id}`, `- POST /posts ${posts.id}`],
  },
  {
    title: "an owner's entries may repeat the owner",
    current: table,
    request: { owner: 'team-b', routes: [{ ...route('GET', '/b', 'h2'), owner: 'team-b' }] },
    expected: [`~ GET /b -> /b h2 ${teamB.id}`],
  },
];

for (const { title, current, request, expected } of cases) {
  test(`plan: ${title}`, (t) => {
    const result = plan(current, request);
    t.deepEqual(summary(result), expected);
    const after = applied(current, result);
    const again = plan(after, request);
    t.true(isEmptyPlan(again), `applying the same table again plans nothing: ${summary(again).join(', ')}`);
  });
}

test('an update keeps the current route (id, creation) and carries the desired definition', (t) => {
  const result = plan(table, { routes: [route('GET', '/users/:uid', 'users.get', [])] });
  t.is(result.update[0]?.current, users);
  t.like(result.update[0]?.desired, { method: 'GET', handler: 'users.get', middleware: [], owner: '', index: 0 });
  t.is(result.update[0]?.desired.pattern.source, '/users/:uid');
});

test("a desired route on another owner's method and shape is already_exists naming that owner, for every such entry", (t) => {
  const error = t.throws(
    () =>
      plan(table, {
        owner: 'team-a',
        routes: [route('GET', '/a'), route('GET', '/b'), route('GET', '/users/:name'), route('GET', '/fresh')],
      }),
    { instanceOf: SwitchyardError },
  );
  t.is(error.code, 'already_exists');
  t.deepEqual(
    error.details.map((detail) => detail.field),
    ['routes[1].path', 'routes[2].path'],
  );
  t.regex(error.details[0]?.reason ?? '', new RegExp(`route ${teamB.id} \\(GET /b\\) of owner "team-b"`));
  t.regex(error.details[1]?.reason ?? '', /of no owner/);
  t.regex(error.message, /owner "team-b"/);
  t.regex(error.message, /never takes over/);
});

test('an apply without owner does not take over an owned route either', (t) => {
  const error = t.throws(() => plan(table, { routes: [route('GET', '/a')] }), { instanceOf: SwitchyardError });
  t.is(error.code, 'already_exists');
  t.regex(error.details[0]?.reason ?? '', /owner "team-a"/);
});

test('two desired entries with one method and shape are invalid_argument, naming both indexes', (t) => {
  const error = t.throws(
    () => plan([], { routes: [route('GET', '/users/:id'), route('GET', '/x'), route('get', '/users/:uid'), route('GET', '/x')] }),
    { instanceOf: SwitchyardError },
  );
  t.is(error.code, 'invalid_argument');
  t.deepEqual(error.details, [
    { field: 'routes[2].path', reason: 'same method and path shape as routes[0] (GET /users/:)' },
    { field: 'routes[3].path', reason: 'same method and path shape as routes[1] (GET /x)' },
  ]);
});
