import test from 'ava';
import { Code } from '@connectrpc/connect';
import { ERROR_CODES } from '@switchyard/core';
import { CODE_NAME_OF, CONTENT_TOO_LARGE, HTTP_STATUS_OF, METHOD_NOT_ALLOWED, RANGE_NOT_SATISFIABLE } from './http-status.js';

test('the statuses of docs/rest.md', (t) => {
  t.is(HTTP_STATUS_OF.invalid_argument, 400);
  t.is(HTTP_STATUS_OF.unauthenticated, 401);
  t.is(HTTP_STATUS_OF.permission_denied, 403);
  t.is(HTTP_STATUS_OF.not_found, 404);
  t.is(HTTP_STATUS_OF.already_exists, 409);
  t.is(HTTP_STATUS_OF.resource_exhausted, 429);
  t.is(HTTP_STATUS_OF.unavailable, 503);
  t.is(HTTP_STATUS_OF.internal, 500);
  t.deepEqual(CONTENT_TOO_LARGE, { code: 'resource_exhausted', status: 413 });
  t.deepEqual(METHOD_NOT_ALLOWED, { code: 'unimplemented', status: 405 });
  t.deepEqual(RANGE_NOT_SATISFIABLE, { code: 'out_of_range', status: 416 });
});

test('every library code has a status', (t) => {
  for (const code of ERROR_CODES) t.true(Number.isInteger(HTTP_STATUS_OF[code]), code);
});

test('every Connect code has a name, and every name a status', (t) => {
  const codes = Object.values(Code).filter((value): value is Code => typeof value === 'number');
  t.is(codes.length, 16);
  for (const code of codes) t.true(Object.hasOwn(HTTP_STATUS_OF, CODE_NAME_OF[code]), String(code));
  t.is(new Set(Object.values(CODE_NAME_OF)).size, 16);
  t.is(Object.keys(HTTP_STATUS_OF).length, 16);
  t.is(CODE_NAME_OF[Code.InvalidArgument], 'invalid_argument');
  t.is(CODE_NAME_OF[Code.Canceled], 'canceled');
});
