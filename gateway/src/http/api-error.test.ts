import test from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import { SwitchyardError } from '@switchyard/core';
import { ApiError, overloaded, requestTimeout, SERVICE_ERROR_DETAILS_KEY, SERVICE_RETRY_AFTER_MS_KEY, toApiError } from './api-error.js';

const fromService = (code: Code, message: string, details?: string) =>
  new ConnectError(message, code, details === undefined ? undefined : { [SERVICE_ERROR_DETAILS_KEY]: details });

test('service errors keep code, message and details', (t) => {
  const error = toApiError(fromService(Code.InvalidArgument, 'id: not a valid asset id', '[{"field":"id","reason":"bad"}]'));
  t.deepEqual(error.body(), { code: 'invalid_argument', message: 'id: not a valid asset id', details: [{ field: 'id', reason: 'bad' }] });
  t.is(error.status, 400);
  t.is(toApiError(fromService(Code.NotFound, 'asset x not found', '[]')).status, 404);
  t.is(toApiError(fromService(Code.Unavailable, 'the database does not answer', '[]')).message, 'the database does not answer');
});

test('malformed details are dropped, not trusted', (t) => {
  t.deepEqual(toApiError(fromService(Code.InvalidArgument, 'x', 'not json')).details, []);
  t.deepEqual(toApiError(fromService(Code.InvalidArgument, 'x', '{"field":"a"}')).details, []);
  t.deepEqual(toApiError(fromService(Code.InvalidArgument, 'x', '[{"field":1,"reason":"r"},{"nope":true},null]')).details, [
    { reason: 'r' },
  ]);
});

test('transport failures the service did not describe get generic messages', (t) => {
  const refused = toApiError(new ConnectError('connect ECONNREFUSED 127.0.0.1:50051', Code.Unavailable));
  t.deepEqual(refused.body(), { code: 'unavailable', message: 'the service is unavailable; try again later', details: [] });
  t.is(refused.status, 503);
  t.is(toApiError(new ConnectError('protocol error: missing trailer', Code.Internal)).message, 'internal error');
  t.is(toApiError(new ConnectError('stack trace here', Code.Unknown, { [SERVICE_ERROR_DETAILS_KEY]: '[]' })).message, 'internal error');
  t.is(toApiError(new ConnectError('deadline', Code.DeadlineExceeded)).status, 504);
});

test('anything else is a bare internal error', (t) => {
  t.deepEqual(toApiError(new TypeError('x is undefined')).body(), { code: 'internal', message: 'internal error', details: [] });
  t.deepEqual(toApiError(new SwitchyardError('internal', 'SQLITE_CORRUPT at /data')).body(), {
    code: 'internal',
    message: 'internal error',
    details: [],
  });
  t.is(toApiError(new SwitchyardError('not_found', 'gone')).status, 404);
});

test('resource_exhausted about a request body is 413, otherwise 429', (t) => {
  const tooBig = fromService(Code.ResourceExhausted, 'file too large', '[]');
  t.is(toApiError(tooBig).status, 429);
  t.is(toApiError(tooBig, { bodyLimited: true }).status, 413);
  t.is(toApiError(fromService(Code.NotFound, 'x', '[]'), { bodyLimited: true }).status, 404);
  const own = new ApiError('invalid_argument', 'mine');
  t.is(toApiError(own), own);
});

test('a retry hint from the service becomes whole seconds for Retry-After, rounded up', (t) => {
  const limited = new ConnectError('rate limit reached', Code.ResourceExhausted, {
    [SERVICE_ERROR_DETAILS_KEY]: '[]',
    [SERVICE_RETRY_AFTER_MS_KEY]: '1200',
  });
  const error = toApiError(limited, { bodyLimited: true });
  t.is(error.status, 429, 'a rate limit on an upload stays 429, not 413');
  t.is(error.retryAfterSeconds, 2);
  t.is(toApiError(new ConnectError('x', Code.ResourceExhausted, { [SERVICE_RETRY_AFTER_MS_KEY]: '5' })).retryAfterSeconds, 1);
  t.is(toApiError(new ConnectError('x', Code.ResourceExhausted, { [SERVICE_RETRY_AFTER_MS_KEY]: 'soon' })).retryAfterSeconds, undefined);
  t.is(toApiError(new SwitchyardError('resource_exhausted', 'slow down', [], { retryAfterMs: 3000 })).retryAfterSeconds, 3);
  t.is(toApiError(fromService(Code.ResourceExhausted, 'too large', '[]'), { bodyLimited: true }).status, 413);
});

test('an upload the service abandoned because the client stalled is 408', (t) => {
  t.is(toApiError(fromService(Code.DeadlineExceeded, 'the client sent nothing for 1000 ms', '[]'), { bodyLimited: true }).status, 408);
  t.is(toApiError(fromService(Code.DeadlineExceeded, 'slow', '[]')).status, 504, 'elsewhere a deadline is the server side');
  t.is(
    toApiError(new ConnectError('deadline', Code.DeadlineExceeded), { bodyLimited: true }).status,
    504,
    'a transport deadline is not the client',
  );
});

test('capacity refusals and request timeouts', (t) => {
  const busy = overloaded('too many uploads in flight');
  t.is(busy.status, 503);
  t.is(busy.retryAfterSeconds, 1);
  const slow = requestTimeout('no body bytes for 1000 ms');
  t.deepEqual([slow.status, slow.code], [408, 'deadline_exceeded']);
});
