import test from 'ava';
import { readFile } from 'node:fs/promises';
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { ERROR_CODES, SwitchyardError } from '@switchyard/core';
import { decodeStatusDetails, jsonDetails } from '../../../test/grpc/support/status-details.js';
import { LogCapture } from '../../../test/grpc/support/log-capture.js';
import { ERROR_DETAILS_KEY, GRPC_STATUS_OF, RETRY_AFTER_MS_KEY, toGrpcStatus } from './error-mapping.js';

/** What a client receives, shaped like grpc-js's ServiceError. */
function asReceived(error: unknown, logs = new LogCapture()): ServiceError {
  const status = toGrpcStatus(error, logs.logger);
  return Object.assign(new Error(status.details), status);
}

test('every library code maps to its own gRPC status', (t) => {
  const mapped = ERROR_CODES.map((code) => GRPC_STATUS_OF[code]);
  t.is(new Set(mapped).size, ERROR_CODES.length);
  t.false(mapped.includes(Status.OK));
  t.false(mapped.includes(Status.UNKNOWN));
  t.is(GRPC_STATUS_OF.canceled, Status.CANCELLED);
  t.is(GRPC_STATUS_OF.not_found, Status.NOT_FOUND);
});

test('the gRPC column of docs/errors.md says what the mapping does', async (t) => {
  const docs = await readFile(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  const documented = Object.fromEntries(
    [...docs.matchAll(/^\| `([a-z_]+)` \|.*\| `([A-Z_]+)` \((\d+)\) \|/gm)].map(
      ([, code = '', name, number]) => [code, `${name} (${number})`] as const,
    ),
  );
  const implemented = Object.fromEntries(ERROR_CODES.map((code) => [code, `${Status[GRPC_STATUS_OF[code]]} (${GRPC_STATUS_OF[code]})`]));
  t.deepEqual(documented, implemented);
});

test('our errors keep their message and details, as JSON and as google.rpc details', (t) => {
  const error = asReceived(
    new SwitchyardError('invalid_argument', 'path: must start with "/"', [
      { field: 'path', reason: 'must start with "/"' },
      { reason: 'see the path grammar' },
    ]),
  );
  t.is(error.code, Status.INVALID_ARGUMENT);
  t.is(error.details, 'path: must start with "/"');
  t.deepEqual(jsonDetails(error), [{ field: 'path', reason: 'must start with "/"' }, { reason: 'see the path grammar' }]);
  const decoded = decodeStatusDetails(error);
  t.is(decoded?.code, Status.INVALID_ARGUMENT);
  t.is(decoded?.message, 'path: must start with "/"');
  t.deepEqual(decoded?.errorInfo, { reason: 'INVALID_ARGUMENT', domain: 'switchyard' });
  t.deepEqual(decoded?.fieldViolations, [{ field: 'path', description: 'must start with "/"' }]);
});

test('without field details there is no BadRequest, but the ErrorInfo names the code', (t) => {
  const decoded = decodeStatusDetails(asReceived(new SwitchyardError('canceled', 'the client canceled')));
  t.deepEqual(decoded?.fieldViolations, []);
  t.is(decoded?.errorInfo?.reason, 'CANCELED');
});

test('the JSON trailer stays printable ASCII whatever the details hold', (t) => {
  const status = toGrpcStatus(
    new SwitchyardError('invalid_argument', 'label', [{ field: 'label', reason: 'bad «é» \u0007 \u007f' }]),
    new LogCapture().logger,
  );
  const raw = status.metadata.get(ERROR_DETAILS_KEY)[0] as string;
  t.regex(raw, /^[\x20-\x7e]*$/);
  t.deepEqual(JSON.parse(raw), [{ field: 'label', reason: 'bad «é» \u0007 \u007f' }]);
});

test('anything else becomes INTERNAL with a generic message, and the stack goes to the log only', (t) => {
  const logs = new LogCapture();
  const error = asReceived(new Error('connect ECONNREFUSED db-password=hunter2'), logs);
  t.is(error.code, Status.INTERNAL);
  t.is(error.details, 'internal error');
  t.deepEqual(jsonDetails(error), []);
  t.false(JSON.stringify(error.metadata.getMap()).includes('hunter2'));
  const logged = logs.lines().find((line) => line['msg'] === 'internal error');
  t.truthy(logged);
  t.regex(JSON.stringify(logged), /hunter2/);
  t.regex(JSON.stringify(logged), /error-mapping\.test\.ts/, 'the stack is logged');
});

test('an internal SwitchyardError hides its message too', (t) => {
  const error = asReceived(new SwitchyardError('internal', 'row 42 violates constraint fk_blob'));
  t.is(error.details, 'internal error');
});

test('thrown non-errors are INTERNAL as well', (t) => {
  t.is(asReceived('a string').code, Status.INTERNAL);
  t.is(asReceived(undefined).code, Status.INTERNAL);
});

test('a retry hint travels as an ASCII trailer and as google.rpc.RetryInfo', (t) => {
  const status = toGrpcStatus(
    new SwitchyardError('resource_exhausted', 'slow down', [], { retryAfterMs: 1250.2 }),
    new LogCapture().logger,
  );
  t.is(status.code, Status.RESOURCE_EXHAUSTED);
  t.deepEqual(status.metadata.get(RETRY_AFTER_MS_KEY), ['1251']);
  const raw = status.metadata.get('grpc-status-details-bin')[0] as Buffer;
  // type url, then Duration { seconds: 1, nanos: 251_000_000 }
  t.true(raw.includes(Buffer.from('type.googleapis.com/google.rpc.RetryInfo')));
  t.true(raw.includes(Buffer.from([0x08, 0x01, 0x10, ...varint(251_000_000)])));
  t.deepEqual(
    toGrpcStatus(new SwitchyardError('resource_exhausted', 'too large'), new LogCapture().logger).metadata.get(RETRY_AFTER_MS_KEY),
    [],
  );
});

function varint(value: number): number[] {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  bytes.push(value);
  return bytes;
}
