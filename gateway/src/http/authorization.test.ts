import test from 'ava';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { ApiError } from './api-error.js';
import { authorizationOf, bearerChallenge } from './authorization.js';

/** A request with these raw header lines, as node:http would have parsed them. */
function requestWith(lines: Array<[string, string]>): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  // node:http's own parser entry point (untyped): fills headers, headersDistinct and rawHeaders.
  (req as unknown as { _addHeaderLines(headers: string[], n: number): void })._addHeaderLines(lines.flat(), lines.length * 2);
  return req;
}

test('one printable Authorization value is passed on as sent; none is undefined', (t) => {
  t.is(authorizationOf(requestWith([['Authorization', 'Bearer abc.def.ghi']])), 'Bearer abc.def.ghi');
  t.is(authorizationOf(requestWith([['Authorization', 'Basic xyz']])), 'Basic xyz', 'the service judges the scheme');
  t.is(authorizationOf(requestWith([])), undefined);
});

test('several Authorization headers are refused, whatever they hold', (t) => {
  const error = t.throws(
    () =>
      authorizationOf(
        requestWith([
          ['Authorization', 'Bearer a.b.c'],
          ['authorization', 'Bearer d.e.f'],
        ]),
      ),
    { instanceOf: ApiError },
  );
  t.is(error.code, 'unauthenticated');
  t.is(error.message, 'send exactly one Authorization header');
  t.false(JSON.stringify(error.body()).includes('a.b.c'), 'the refusal repeats nothing that was sent');
});

test('a value gRPC metadata cannot carry (tab, latin-1) is refused without being repeated', (t) => {
  for (const value of ['Bearer\tabc.def.ghi', 'Bearer abc.def.ghi\u00ff', 'Bearer \u00e9t\u00e9']) {
    const error = t.throws(() => authorizationOf(requestWith([['Authorization', value]])), { instanceOf: ApiError });
    t.is(error.code, 'unauthenticated');
    t.false(JSON.stringify(error.body()).includes('abc'), 'the refusal repeats nothing that was sent');
  }
});

test('the 401 challenge says Bearer, and invalid_token once a credential was presented', (t) => {
  t.is(bearerChallenge(requestWith([])), 'Bearer realm="switchyard"');
  t.is(bearerChallenge(requestWith([['Authorization', 'Bearer x']])), 'Bearer realm="switchyard", error="invalid_token"');
  t.is(bearerChallenge(undefined), 'Bearer realm="switchyard"');
});
