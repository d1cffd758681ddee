import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { MAX_REQUEST_PATH_LENGTH, parseRequestPath } from './request-path.js';

const accepted = [
  '/',
  '/users/42',
  '/users/',
  '/a//b',
  '/caf%C3%A9',
  '/café',
  '/a%2Fb',
  '/:id',
  '/*',
  '/' + 'a'.repeat(MAX_REQUEST_PATH_LENGTH - 1),
];
for (const path of accepted) {
  test(`accepts the request path ${path.length > 30 ? `of ${path.length} characters` : path}`, (t) => {
    t.is(parseRequestPath(path), path);
  });
}

const refused: [string, unknown, string][] = [
  ['a number', 7, 'must be a string'],
  ['undefined', undefined, 'must be a string'],
  ['an empty string', '', 'must start with "/"'],
  ['a relative path', 'users/1', 'must start with "/"'],
  ['an absolute URL', 'http://x/users', 'must start with "/"'],
  [`${MAX_REQUEST_PATH_LENGTH + 1} characters`, '/' + 'a'.repeat(MAX_REQUEST_PATH_LENGTH), 'must be at most 4096 characters'],
  ['a query', '/users?id=1', 'must not contain a query ("?") or fragment ("#")'],
  ['a fragment', '/users#x', 'must not contain a query ("?") or fragment ("#")'],
  ['a space', '/a b', 'must not contain spaces or control characters'],
  ['a newline', '/a\nb', 'must not contain spaces or control characters'],
  ['DEL', '/a\u007f', 'must not contain spaces or control characters'],
  ['a lone percent sign', '/100%', 'malformed percent-encoding'],
  ['bytes that are not UTF-8', '/%FF', 'malformed percent-encoding'],
  ['a UTF-8 sequence cut by a slash', '/%C3/%A9', 'malformed percent-encoding'],
];
for (const [label, value, reason] of refused) {
  test(`refuses a request path with ${label}`, (t) => {
    const error = t.throws(() => parseRequestPath(value), { instanceOf: SwitchyardError });
    t.is(error.code, 'invalid_argument');
    t.deepEqual(error.details, [{ field: 'path', reason }]);
  });
}
