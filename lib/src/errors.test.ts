import test from 'ava';
import { Code } from '@connectrpc/connect';
// Connect's own code → HTTP status table: the "usual statuses" docs/rest.md promises.
import { codeToHttpStatus } from '@connectrpc/connect/protocol-connect';
import { readFile } from 'node:fs/promises';
import { ERROR_CODES, invalidArgument, isSwitchyardError, SwitchyardError, toSwitchyardError } from './errors.js';

interface DocumentedCode {
  readonly code: string;
  readonly http: string;
  readonly grpc: string;
}

/** The rows of the table between the `error-codes` markers in docs/errors.md. */
async function documentedCodes(): Promise<DocumentedCode[]> {
  const markdown = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const table = /<!-- error-codes:start -->([\s\S]*?)<!-- error-codes:end -->/.exec(markdown)?.[1] ?? '';
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split('|').map((cell) => cell.trim());
      return { code: (cells[1] ?? '').replaceAll('`', ''), http: cells[3] ?? '', grpc: cells[4] ?? '' };
    });
}

const pascal = (code: string) =>
  code
    .split('_')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

test('docs/errors.md lists exactly ERROR_CODES, in order', async (t) => {
  const rows = await documentedCodes();
  t.deepEqual(
    rows.map((row) => row.code),
    [...ERROR_CODES],
  );
});

test("each documented code has Connect's usual HTTP status and the matching gRPC status", async (t) => {
  for (const row of await documentedCodes()) {
    const connectCode = Code[pascal(row.code) as keyof typeof Code];
    t.is(typeof connectCode, 'number', `${row.code} is a Connect code`);
    t.is(Number(/^\d{3}/.exec(row.http)?.[0]), codeToHttpStatus(connectCode), `HTTP status of ${row.code}`);
    const grpc = /^`([A-Z_]+)` \((\d+)\)$/.exec(row.grpc);
    t.truthy(grpc, `gRPC cell of ${row.code}: ${row.grpc}`);
    t.is(Number(grpc?.[2]), connectCode, `gRPC number of ${row.code}`);
    t.is(grpc?.[1]?.replace('CANCELLED', 'CANCELED'), row.code.toUpperCase(), `gRPC name of ${row.code}`);
  }
});

test('SwitchyardError keeps code, message, frozen details and cause', (t) => {
  const cause = new Error('driver said no');
  const error = new SwitchyardError('unavailable', 'database unavailable', [{ reason: 'connection refused' }], { cause });
  t.true(error instanceof Error);
  t.is(error.name, 'SwitchyardError');
  t.is(error.code, 'unavailable');
  t.is(error.cause, cause);
  t.true(Object.isFrozen(error.details));
  t.true(isSwitchyardError(error));
  t.false(isSwitchyardError(cause));
});

test('invalidArgument names the field and the reason', (t) => {
  const error = invalidArgument('path', 'must start with "/"');
  t.is(error.code, 'invalid_argument');
  t.is(error.message, 'path: must start with "/"');
  t.deepEqual(error.details, [{ field: 'path', reason: 'must start with "/"' }]);
});

test('toSwitchyardError passes ours through and hides anything else as internal', (t) => {
  const ours = new SwitchyardError('not_found', 'route not found');
  t.is(toSwitchyardError(ours), ours);
  for (const thrown of [new TypeError('secret stack detail'), 'a string', undefined, { code: 'ECONNREFUSED' }]) {
    const error = toSwitchyardError(thrown);
    t.is(error.code, 'internal');
    t.is(error.message, 'internal error');
    t.is(error.cause, thrown);
  }
});

test('SwitchyardError carries a retry hint only when given one', (t) => {
  t.is(new SwitchyardError('resource_exhausted', 'slow down', [], { retryAfterMs: 1500 }).retryAfterMs, 1500);
  t.is(new SwitchyardError('resource_exhausted', 'too large').retryAfterMs, undefined);
});
