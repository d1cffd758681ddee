import test from 'ava';
import { SwitchyardError } from '@switchyard/core';
import { databaseError, isDuplicateKeyError } from './database-errors.js';

/** Driver-shaped errors, as mysql2 and better-sqlite3 throw them. */
const driverError = (fields: Record<string, unknown>) => Object.assign(new Error('driver says no'), fields);

test('duplicate keys of both dialects are already_exists, worded by the caller when it wants', (t) => {
  for (const error of [
    driverError({ code: 'ER_DUP_ENTRY', errno: 1062 }),
    driverError({ errno: 1062 }),
    driverError({ code: 'SQLITE_CONSTRAINT_UNIQUE' }),
    driverError({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }),
  ]) {
    t.true(isDuplicateKeyError(error));
    t.is(databaseError(error).code, 'already_exists');
    t.is(databaseError(error, () => new SwitchyardError('already_exists', 'route exists')).message, 'route exists');
  }
});

test('lost, refused and busy connections are unavailable', (t) => {
  for (const fields of [
    { code: 'ECONNREFUSED' },
    { code: 'PROTOCOL_CONNECTION_LOST', fatal: true },
    { code: 'ETIMEDOUT' },
    { code: 'ER_ACCESS_DENIED_ERROR', errno: 1045 },
    { code: 'SOMETHING_NEW', fatal: true },
    { code: 'SQLITE_BUSY' },
    { code: 'SQLITE_BUSY_SNAPSHOT' },
    { code: 'SQLITE_IOERR_WRITE' },
  ]) {
    const error = databaseError(driverError(fields));
    t.is(error.code, 'unavailable', JSON.stringify(fields));
    t.false(error.message.includes('driver says no'), 'driver messages stay in the cause');
  }
});

test('a MySQL deadlock victim is aborted; other driver errors are internal; ours pass through', (t) => {
  t.is(databaseError(driverError({ code: 'ER_LOCK_DEADLOCK', errno: 1213 })).code, 'aborted');
  t.is(databaseError(driverError({ code: 'ER_PARSE_ERROR', errno: 1064 })).code, 'internal');
  t.is(databaseError(driverError({ code: 'SQLITE_CONSTRAINT_NOTNULL' })).code, 'internal');
  t.is(databaseError(new TypeError('bug')).code, 'internal');
  const ours = new SwitchyardError('not_found', 'gone');
  t.is(databaseError(ours), ours);
});
