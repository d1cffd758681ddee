import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { RouteTable } from './route-table.js';

const route = (method: string, path: string) => ({ method, path });
const tableOf = (...paths: string[]) => new RouteTable(paths.map((path) => route('GET', path)));
/** The matched pattern and params, or undefined: what most assertions compare. */
const matched = (table: RouteTable, path: string, method = 'GET') => {
  const found = table.match(method, path);
  return found && { path: found.route.path, params: found.params };
};

test('matches static, parameter and root routes', (t) => {
  const table = tableOf('/', '/users', '/users/:id', '/users/:id/comments/:commentId');
  t.deepEqual(matched(table, '/'), { path: '/', params: {} });
  t.deepEqual(matched(table, '/users'), { path: '/users', params: {} });
  t.deepEqual(matched(table, '/users/42'), { path: '/users/:id', params: { id: '42' } });
  t.deepEqual(matched(table, '/users/42/comments/c7'), { path: '/users/:id/comments/:commentId', params: { id: '42', commentId: 'c7' } });
  t.is(matched(table, '/users/42/comments'), undefined);
  t.is(matched(table, '/nope'), undefined);
});

test('returns the route object it was given, with its extra fields', (t) => {
  const mine = { method: 'GET', path: '/x', handler: 'x.show' };
  t.is(new RouteTable([mine]).match('GET', '/x')?.route, mine);
});

test('static beats parameter beats wildcard at the same depth', (t) => {
  const table = tableOf('/users/*', '/users/:id', '/users/me');
  t.is(matched(table, '/users/me')?.path, '/users/me');
  t.deepEqual(matched(table, '/users/42'), { path: '/users/:id', params: { id: '42' } });
  t.deepEqual(matched(table, '/users/42/x'), { path: '/users/*', params: { '*': '42/x' } });
});

test('precedence holds at every depth, not only the last', (t) => {
  const table = tableOf('/a/:x/c', '/a/b/:y', '/:z/b/c');
  t.deepEqual(matched(table, '/a/b/c'), { path: '/a/b/:y', params: { y: 'c' } });
  t.deepEqual(matched(table, '/a/q/c'), { path: '/a/:x/c', params: { x: 'q' } });
  t.deepEqual(matched(table, '/q/b/c'), { path: '/:z/b/c', params: { z: 'q' } });
});

test('backtracks from a static branch that fails further down to a parameter', (t) => {
  const table = tableOf('/a/:x/c', '/a/b/d');
  t.deepEqual(matched(table, '/a/b/c'), { path: '/a/:x/c', params: { x: 'b' } });
  t.deepEqual(matched(table, '/a/b/d'), { path: '/a/b/d', params: {} });
});

test('backtracks from a parameter branch to a wildcard, dropping the parameter', (t) => {
  const table = tableOf('/a/:x/c', '/a/*');
  t.deepEqual(matched(table, '/a/b/zzz'), { path: '/a/*', params: { '*': 'b/zzz' } });
});

test('backtracks several levels up to a shallower wildcard', (t) => {
  const table = tableOf('/a/b/c/d', '/a/:p/:q/e', '/*');
  t.deepEqual(matched(table, '/a/b/c/x'), { path: '/*', params: { '*': 'a/b/c/x' } });
  t.deepEqual(matched(table, '/a/b/c/e'), { path: '/a/:p/:q/e', params: { p: 'b', q: 'c' } });
});

test('a wildcard needs its slash and takes the rest, possibly empty', (t) => {
  const table = tableOf('/files/*');
  t.deepEqual(matched(table, '/files/'), { path: '/files/*', params: { '*': '' } });
  t.deepEqual(matched(table, '/files/a/b/c.png'), { path: '/files/*', params: { '*': 'a/b/c.png' } });
  t.deepEqual(matched(table, '/files//x/'), { path: '/files/*', params: { '*': '/x/' } });
  t.is(matched(table, '/files'), undefined);
  t.is(matched(table, '/filesx'), undefined);
});

test('a root wildcard matches everything, below the root route', (t) => {
  const table = tableOf('/*');
  t.deepEqual(matched(table, '/'), { path: '/*', params: { '*': '' } });
  t.deepEqual(matched(tableOf('/*', '/'), '/'), { path: '/', params: {} });
  t.deepEqual(matched(table, '/a/b'), { path: '/*', params: { '*': 'a/b' } });
});

test('wildcard after parameters yields both', (t) => {
  const table = tableOf('/users/:id/files/*');
  t.deepEqual(matched(table, '/users/7/files/img/a.png'), { path: '/users/:id/files/*', params: { id: '7', '*': 'img/a.png' } });
});

test('strict about trailing slashes and empty segments', (t) => {
  const table = tableOf('/users', '/users/:id', '/a/b');
  t.is(matched(table, '/users/'), undefined);
  t.is(matched(table, '/a//b'), undefined);
  t.is(matched(table, '//users'), undefined);
  t.is(matched(table, '/users/42/'), undefined);
});

test('paths are case-sensitive', (t) => {
  t.is(matched(tableOf('/Users'), '/users'), undefined);
});

test('a path without a leading slash matches nothing', (t) => {
  const table = tableOf('/*', '/users');
  t.is(matched(table, 'users'), undefined);
  t.is(matched(table, ''), undefined);
});

test('methods are matched case-insensitively and kept apart', (t) => {
  const table = new RouteTable([route('GET', '/users'), route('post', '/users'), route('DELETE', '/users/:id')]);
  t.is(table.match('get', '/users')?.route.method, 'GET');
  t.is(table.match('POST', '/users')?.route.method, 'post');
  t.is(table.match('Delete', '/users/1')?.route.path, '/users/:id');
  t.is(table.match('PUT', '/users'), undefined);
  t.is(table.match('DELETE', '/users'), undefined);
  t.is(table.match('BREW', '/users'), undefined);
});

test('HEAD falls back to GET, but prefers a HEAD route', (t) => {
  const table = new RouteTable([route('GET', '/users/:id'), route('HEAD', '/users/me'), route('POST', '/posts')]);
  t.is(table.match('HEAD', '/users/42')?.route.method, 'GET');
  t.is(table.match('head', '/users/42')?.route.method, 'GET');
  t.is(table.match('HEAD', '/users/me')?.route.method, 'HEAD');
  t.is(table.match('HEAD', '/posts'), undefined);
  t.is(table.match('GET', '/users/me')?.route.method, 'GET');
});

test('parameter values and the wildcard rest are percent-decoded', (t) => {
  const table = tableOf('/users/:id', '/files/*');
  t.deepEqual(matched(table, '/users/a%20b'), { path: '/users/:id', params: { id: 'a b' } });
  t.deepEqual(matched(table, '/users/caf%C3%A9'), { path: '/users/:id', params: { id: 'café' } });
  t.deepEqual(matched(table, '/users/100%25'), { path: '/users/:id', params: { id: '100%' } });
  t.deepEqual(matched(table, '/files/a%20b/c%2Fd'), { path: '/files/*', params: { '*': 'a b/c/d' } });
});

test('an encoded slash is data inside one segment, not a separator', (t) => {
  const table = tableOf('/users/:id', '/users/:id/x');
  t.deepEqual(matched(table, '/users/a%2Fx'), { path: '/users/:id', params: { id: 'a/x' } });
  t.deepEqual(matched(table, '/users/a%2fb/x'), { path: '/users/:id/x', params: { id: 'a/b' } });
});

test('static segments compare by decoded text', (t) => {
  const table = tableOf('/caf%C3%A9', '/a/%25/:x', '/Abc/:y');
  t.deepEqual(matched(table, '/caf%c3%a9'), { path: '/caf%C3%A9', params: {} });
  t.deepEqual(matched(table, '/café'), { path: '/caf%C3%A9', params: {} });
  t.deepEqual(matched(table, '/a/%25/1'), { path: '/a/%25/:x', params: { x: '1' } });
  t.deepEqual(matched(table, '/%41bc/2'), { path: '/Abc/:y', params: { y: '2' } });
  t.is(matched(table, '/a/%2525/1'), undefined);
});

test('malformed percent-encoding in a concrete path is invalid_argument', (t) => {
  const table = tableOf('/users/:id');
  for (const path of ['/users/%', '/users/%zz', '/users/%FF', '/users/%C3']) {
    const error = t.throws(() => table.match('GET', path), { instanceOf: SwitchyardError });
    t.is(error.code, 'invalid_argument');
    t.is(error.details[0]?.field, 'path');
  }
});

test('parameters never match an empty segment', (t) => {
  const table = tableOf('/users/:id/posts');
  t.is(matched(table, '/users//posts'), undefined);
});

test('each match gets its own params object', (t) => {
  const table = tableOf('/users/:id', '/static');
  const first = table.match('GET', '/users/1')!;
  first.params['id'] = 'changed';
  t.deepEqual(table.match('GET', '/users/1')?.params, { id: '1' });
  t.not(table.match('GET', '/static')?.params, table.match('GET', '/static')?.params);
});

test('parameter names such as constructor and toString are plain own values', (t) => {
  const table = tableOf('/:constructor/:toString/:hasOwnProperty');
  t.deepEqual(matched(table, '/a/b/c')?.params, { constructor: 'a', toString: 'b', hasOwnProperty: 'c' });
});

test('refuses two routes of one method and shape, but not across methods', (t) => {
  const error = t.throws(() => tableOf('/users/:id', '/users/:uid'), { instanceOf: SwitchyardError });
  t.is(error.code, 'already_exists');
  t.throws(() => tableOf('/files/*', '/files/*'), { instanceOf: SwitchyardError });
  t.throws(() => tableOf('/', '/'), { instanceOf: SwitchyardError });
  t.throws(() => tableOf('/%41', '/A'), { instanceOf: SwitchyardError });
  t.is(new RouteTable([route('GET', '/users/:id'), route('PUT', '/users/:uid')]).size, 2);
});

test('refuses invalid routes with invalid_argument', (t) => {
  const badMethod = t.throws(() => new RouteTable([route('BREW', '/x')]), { instanceOf: SwitchyardError });
  t.is(badMethod.details[0]?.field, 'method');
  const badPath = t.throws(() => tableOf('/x/'), { instanceOf: SwitchyardError });
  t.is(badPath.details[0]?.field, 'path');
});

test('an empty table matches nothing', (t) => {
  const table = new RouteTable([]);
  t.is(table.size, 0);
  t.is(table.match('GET', '/'), undefined);
  t.is(table.match('HEAD', '/'), undefined);
});

test('finds the right route among many siblings (map-indexed children)', (t) => {
  const paths = Array.from({ length: 200 }, (_, i) => `/r${i}/:id/x${i % 7}`);
  const table = tableOf(...paths, '/r5/fixed/x5');
  for (let i = 0; i < 200; i++) t.deepEqual(matched(table, `/r${i}/v/x${i % 7}`), { path: `/r${i}/:id/x${i % 7}`, params: { id: 'v' } });
  t.is(matched(table, '/r5/fixed/x5')?.path, '/r5/fixed/x5');
  t.is(matched(table, '/r5/v/x6'), undefined);
});

test('agrees with a brute-force reference on a mixed route set', (t) => {
  const paths = ['/', '/a', '/a/b', '/a/:x', '/a/:x/c', '/a/b/d', '/a/*', '/:p/b', '/:p/:q/:r', '/x/*', '/x/y/*'];
  const table = tableOf(...paths);
  const probes = [
    '/',
    '/a',
    '/a/b',
    '/a/z',
    '/a/b/c',
    '/a/b/d',
    '/a/z/c',
    '/a/b/e',
    '/q/b',
    '/q/w/e',
    '/x/',
    '/x/y',
    '/x/y/',
    '/x/y/z/w',
    '/q',
    '/a/b/c/d',
  ];
  for (const probe of probes) t.is(matched(table, probe)?.path, reference(paths, probe), probe);
});

/** Ranks every pattern that matches by its per-segment kinds (static < param < wildcard), lexicographically. */
function reference(patterns: string[], path: string): string | undefined {
  const parts = path === '/' ? [''] : path.slice(1).split('/');
  let best: { rank: number[]; pattern: string } | undefined;
  for (const pattern of patterns) {
    const segments = pattern === '/' ? [''] : pattern.slice(1).split('/');
    const rank: number[] = [];
    let ok = true;
    for (let i = 0; i < segments.length && ok; i++) {
      const segment = segments[i]!;
      if (segment === '*') {
        ok = i < parts.length || (pattern === '/*' && path === '/');
        rank.push(2);
        break;
      }
      const part = parts[i];
      if (part === undefined) ok = false;
      else if (segment.startsWith(':')) {
        ok = part !== '';
        rank.push(1);
      } else {
        ok = part === segment;
        rank.push(0);
      }
      if (ok && i === segments.length - 1 && parts.length !== segments.length) ok = false;
    }
    if (ok && (!best || compare(rank, best.rank) < 0)) best = { rank, pattern };
  }
  return best?.pattern;
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
