import test from 'ava';
import { scrubGrpcJsMessage } from './grpc-js-logging.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';

test('a metadata entry grpc-js refused is logged without its value', (t) => {
  const message = `Failed to add metadata entry authorization: Bearer\t${JWT}. Metadata string value "Bearer\t${JWT}" contains illegal characters. For more information see https://github.com/grpc/grpc-node/issues/1173`;
  const scrubbed = scrubGrpcJsMessage(message);
  t.is(scrubbed, 'Failed to add metadata entry authorization: value withheld (not valid in gRPC metadata); the entry was dropped');
  t.false(scrubbed.includes('eyJ'));
});

test('credentials anywhere else in a grpc-js message are masked', (t) => {
  t.is(scrubGrpcJsMessage(`call failed for Bearer ${JWT} on GetRoute`), 'call failed for Bearer [redacted] on GetRoute');
  t.is(scrubGrpcJsMessage(`header authorization=basic dXNlcjpwYXNz`), 'header authorization=basic [redacted]');
  t.is(scrubGrpcJsMessage(`token ${JWT} seen`), 'token [redacted] seen');
  t.is(scrubGrpcJsMessage('Server started on 127.0.0.1:50051'), 'Server started on 127.0.0.1:50051');
});
