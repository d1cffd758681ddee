// `switchyard routes export|diff|apply` in process against a real gateway and service (SQLite):
// what each prints and its exit code (diff: 0 no changes, 2 changes, 1 error).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { runCli } from '../support/cli.js';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';

let stack: Stack;
let dir: string;
test.before(async () => {
  stack = await startStack();
  dir = await mkdtemp(join(tmpdir(), 'switchyard-routes-cli-'));
});
test.after.always(async () => {
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

let files = 0;
async function file(text: string, extension = 'yaml'): Promise<string> {
  const path = join(dir, `routes-${++files}.${extension}`);
  await writeFile(path, text);
  return path;
}

async function cli(workspace: string, ...command: string[]) {
  return runCli(['routes', ...command], { SWITCHYARD_URL: stack.url, SWITCHYARD_TOKEN: await stack.token(workspace) });
}

const TABLE = `format: switchyard.routes/v1
routes:
  - method: GET
    path: /users/:id
    middleware: [auth]
    handler: getUser
  - method: post
    path: /users
    handler: createUser
`;

test('diff shows what apply would do and exits 2; apply writes it; then diff exits 0 and export prints the table back', async (t) => {
  const ws = freshWorkspace();
  const path = await file(TABLE);
  const diff = await cli(ws, 'diff', path);
  t.is(diff.code, 2, diff.stderr);
  t.deepEqual(diff.stdout.trim().split('\n'), [
    '+ GET /users/:id -> getUser [auth]',
    '+ POST /users -> createUser',
    '2 to create, 0 to update, 0 to delete, 0 unchanged (revision 0)',
  ]);
  const applied = await cli(ws, 'apply', path);
  t.is(applied.code, 0, applied.stderr);
  t.is(applied.stdout.trim().split('\n').at(-1), '2 created, 0 updated, 0 deleted, 0 unchanged (now at revision 1)');
  const again = await cli(ws, 'diff', path);
  t.is(again.code, 0, again.stderr);
  t.is(again.stdout.trim(), '0 to create, 0 to update, 0 to delete, 2 unchanged (revision 1)');

  const exported = await cli(ws, 'export');
  t.is(exported.code, 0, exported.stderr);
  t.is(
    exported.stdout,
    `format: switchyard.routes/v1
routes:
  - method: POST
    path: /users
    handler: createUser
  - method: GET
    path: /users/:id
    middleware:
      - auth
    handler: getUser
`,
  );
  const json = await cli(ws, 'export', '--json');
  const parsed = JSON.parse(json.stdout) as { format: string; routes: unknown[] };
  t.is(parsed.format, 'switchyard.routes/v1');
  t.is(parsed.routes.length, 2);
  t.is((await cli(ws, 'diff', await file(json.stdout, 'json'))).code, 0, 'the exported JSON is the table');
});

test('apply with an owner and prune: ~ and - lines, other owners untouched; --dry-run writes nothing; --json prints the result', async (t) => {
  const ws = freshWorkspace();
  t.is((await cli(ws, 'apply', await file(TABLE), '--owner', 'users')).code, 0);
  const next = await file(`format: switchyard.routes/v1
routes:
  - { method: GET, path: '/users/:userId', handler: getUser }
`);
  const dry = await cli(ws, 'apply', next, '--owner', 'users', '--prune', '--dry-run');
  t.is(dry.code, 0, dry.stderr);
  t.deepEqual(dry.stdout.trim().split('\n'), [
    '~ GET /users/:userId: path /users/:id -> /users/:userId; middleware [auth] -> []',
    '- POST /users -> createUser (owner users)',
    '0 to create, 1 to update, 1 to delete, 0 unchanged (revision 1)',
  ]);
  const stale = await cli(ws, 'apply', next, '--owner', 'users', '--prune', '--expected-revision', '0');
  t.is(stale.code, 1);
  t.regex(stale.stderr, /^aborted: .*revision 1/m);
  const done = await cli(ws, 'apply', next, '--owner', 'users', '--prune', '--expected-revision', '1', '--json');
  t.is(done.code, 0, done.stderr);
  const result = JSON.parse(done.stdout) as { revision: number; deleted: { path: string }[] };
  t.is(result.revision, 2);
  t.deepEqual(
    result.deleted.map((r) => r.path),
    ['/users'],
  );
  const others = await cli(ws, 'diff', await file(TABLE), '--owner', 'team-b');
  t.is(others.code, 1, "another owner's shape is an error, not a change");
  t.regex(others.stderr, /already_exists: .*owner "users"/);
});

test('diff --out saves its plan; apply --plan applies it only to the table it was made from, with the same file and options', async (t) => {
  const ws = freshWorkspace();
  const path = await file(TABLE);
  const plan = join(dir, `plan-${ws}.json`);
  const diff = await cli(ws, 'diff', path, '--owner', 'users', '--out', plan);
  t.is(diff.code, 2, diff.stderr);
  const saved = JSON.parse(await readFile(plan, 'utf8')) as Record<string, unknown>;
  t.like(saved, { format: 'switchyard.plan/v1', url: stack.url, owner: 'users', prune: false, revision: 0 });
  t.is(saved['summary'], '2 to create, 0 to update, 0 to delete, 0 unchanged (revision 0)');

  // The same apply with other options, or another file, is not the plan's.
  const otherOwner = await cli(ws, 'apply', path, '--owner', 'team-b', '--plan', plan);
  t.is(otherOwner.code, 1);
  t.regex(otherOwner.stderr, /the plan was made with --owner users; run `switchyard routes diff FILE --out .*` again/);
  t.regex((await cli(ws, 'apply', path, '--owner', 'users', '--prune', '--plan', plan)).stderr, /the plan was made without --prune/);
  const edited = await file(`${TABLE}  - { method: GET, path: /extra, handler: extra }\n`);
  t.regex((await cli(ws, 'apply', edited, '--owner', 'users', '--plan', plan)).stderr, /the file has changed since the plan was made/);
  // A comment or a reformat is the same file.
  const reformatted = await file(`# the users team's routes\n${TABLE}`);
  const applied = await cli(ws, 'apply', reformatted, '--owner', 'users', '--plan', plan);
  t.is(applied.code, 0, applied.stderr);
  t.is(applied.stdout.trim().split('\n').at(-1), '2 created, 0 updated, 0 deleted, 0 unchanged (now at revision 1)');

  // A plan made, then someone else changes the table: the plan is stale, and nothing is written.
  const next = await file(`format: switchyard.routes/v1
routes:
  - { method: GET, path: '/users/:id', handler: getUserV2 }
`);
  t.is((await cli(ws, 'diff', next, '--owner', 'users', '--prune', '--out', plan)).code, 2);
  const meanwhile = await fetch(`${stack.url}/v1/routing`, {
    method: 'POST',
    headers: { ...(await stack.auth(ws)), 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: '/health', handler: 'health', owner: 'ops' }),
  });
  t.is(meanwhile.status, 201);
  const stale = await cli(ws, 'apply', next, '--owner', 'users', '--prune', '--plan', plan);
  t.is(stale.code, 1);
  t.regex(stale.stderr, /^aborted: the routes have changed since the plan in .* was made at revision 1 .*nothing was written/m);
  t.is((await cli(ws, 'diff', next, '--owner', 'users', '--prune')).code, 2, 'nothing of the stale plan was written');
  // Told otherwise: a plan made again goes through.
  t.is((await cli(ws, 'diff', next, '--owner', 'users', '--prune', '--out', plan)).code, 2);
  t.is((await cli(ws, 'apply', next, '--owner', 'users', '--prune', '--plan', plan)).code, 0);
  t.is((await cli(ws, 'diff', next, '--owner', 'users', '--prune')).code, 0);

  const notPlan = await file('{"format": "switchyard.routes/v1", "routes": []}', 'json');
  t.regex((await cli(ws, 'apply', next, '--owner', 'users', '--prune', '--plan', notPlan)).stderr, /not a switchyard\.plan\/v1 plan/);
  t.regex((await cli(ws, 'apply', next, '--plan', join(dir, 'no-plan.json'))).stderr, /no-plan\.json: cannot be read \(ENOENT\)/);
});

test('a YAML mistake is reported with its line and column; a bad entry with its place in the file; nothing is written', async (t) => {
  const ws = freshWorkspace();
  const broken = await file('format: switchyard.routes/v1\nroutes:\n  - method: GET\n    path: [/x\n');
  const syntax = await cli(ws, 'apply', broken);
  t.is(syntax.code, 1);
  t.regex(syntax.stderr, new RegExp(`^${broken.replaceAll('.', '\\.')}:\\d+:\\d+: `));
  const entries = await file(`format: switchyard.routes/v1
routes:
  - method: GET
    path: /ok
    handler: ok
  - method: GET
    path: no-slash
    handler: bad
`);
  const refused = await cli(ws, 'diff', entries);
  t.is(refused.code, 1);
  t.true(refused.stderr.includes(`${entries}:7:11: routes[1].path: `), refused.stderr);
  const format = await cli(ws, 'apply', await file('format: switchyard.routes/v2\nroutes: []\n'));
  t.is(format.code, 1);
  t.regex(format.stderr, /:1:9: format must be "switchyard\.routes\/v1"/);
  t.is((await cli(ws, 'export')).stdout, 'format: switchyard.routes/v1\nroutes: []\n');
});

test('a bad command line or environment exits 1 with the usage, never 2', async (t) => {
  const ws = freshWorkspace();
  for (const command of [
    ['diff'],
    ['apply', 'a', 'b'],
    ['export', '--prune'],
    ['frobnicate'],
    ['diff', 'x.yaml', '--expected-revision', '1'],
    ['diff', 'x.yaml', '--plan', 'p.json'],
    ['apply', 'x.yaml', '--out', 'p.json'],
    ['apply', 'x.yaml', '--plan', 'p.json', '--expected-revision', '1'],
  ]) {
    const run = await cli(ws, ...command);
    t.is(run.code, 1, command.join(' '));
    t.regex(run.stderr, /usage: switchyard routes/, command.join(' '));
  }
  const revision = await cli(ws, 'apply', await file(TABLE), '--expected-revision', 'soon');
  t.is(revision.code, 1);
  t.regex(revision.stderr, /--expected-revision must be a whole number/);
  const unset = await runCli(['routes', 'export'], { SWITCHYARD_URL: '' });
  t.is(unset.code, 1);
  t.regex(unset.stderr, /SWITCHYARD_URL is not set/);
  const missing = await cli(ws, 'diff', join(dir, 'nowhere.yaml'));
  t.is(missing.code, 1);
  t.regex(missing.stderr, /nowhere\.yaml: cannot be read \(ENOENT\)/);
  const denied = await runCli(['routes', 'export'], { SWITCHYARD_URL: stack.url, SWITCHYARD_TOKEN: 'not-a-token' });
  t.is(denied.code, 1);
  t.regex(denied.stderr, /^unauthenticated: /);
});
