import test from 'ava';
import { grpcTimeout, requestHeaders } from './grpc-framing.js';

test('grpc-timeout keeps to 8 digits: milliseconds rounded up, whole seconds beyond', (t) => {
  t.is(grpcTimeout(15_000), '15000m');
  t.is(grpcTimeout(1500.5), '1501m');
  t.is(grpcTimeout(99_999_999), '99999999m');
  t.is(grpcTimeout(123_456_789), '123457S');
  t.is(grpcTimeout(1e20), '99999999S');
});

test("the protocol's headers win over the caller's; repeated caller headers are combined", (t) => {
  const headers = requestHeaders(
    [
      ['Content-Type', 'text/plain'],
      ['TE', 'gzip'],
      ['x-request-id', 'a'],
      ['X-Request-Id', 'b'],
      ['authorization', 'Bearer t'],
    ],
    2_000,
  );
  t.deepEqual(headers, {
    'content-type': 'application/grpc+proto',
    te: 'trailers',
    'x-request-id': 'a, b',
    authorization: 'Bearer t',
    'grpc-timeout': '2000m',
  });
  t.false('grpc-timeout' in requestHeaders({ authorization: 'x' }, 0), 'no deadline, no header');
});
