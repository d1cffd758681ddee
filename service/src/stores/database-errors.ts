import { SwitchyardError } from '@switchyard/core';

/** Driver error fields we read; mysql2 and better-sqlite3 both set `code`, mysql2 also `errno` and `fatal`. */
interface DriverError {
  readonly code?: unknown;
  readonly errno?: unknown;
  readonly fatal?: unknown;
}

const MYSQL_DUPLICATE_ENTRY = 1062;
const SQLITE_DUPLICATE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** The database cannot answer now; retrying later (or elsewhere) may work. */
const UNAVAILABLE_CODES = new Set([
  // Sockets (mysql2).
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'POOL_CLOSED',
  // Server refusals (mysql2).
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_OPTION_PREVENTS_STATEMENT',
  // Primary result codes (better-sqlite3 reports extended ones such as SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE).
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
  'SQLITE_PROTOCOL',
  'SQLITE_NOMEM',
]);

function codeOf(error: unknown): string | undefined {
  const code = (error as DriverError | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A unique or primary key refused a row, in either dialect. */
export function isDuplicateKeyError(error: unknown): boolean {
  const code = codeOf(error);
  return (
    (code !== undefined && SQLITE_DUPLICATE_CODES.has(code)) ||
    code === 'ER_DUP_ENTRY' ||
    (error as DriverError | null)?.errno === MYSQL_DUPLICATE_ENTRY
  );
}

export function isUnavailableError(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined) {
    const primary = code.startsWith('SQLITE_') ? code.split('_', 2).join('_') : code;
    if (UNAVAILABLE_CODES.has(primary)) return true;
  }
  // mysql2 marks errors that killed the connection as fatal.
  return (error as DriverError | null)?.fatal === true;
}

/**
 * The one place where driver errors become SwitchyardErrors: duplicates become
 * `already_exists` (with the caller's wording), lost or refused connections
 * `unavailable`, a MySQL deadlock victim `aborted`, anything else `internal`.
 * Driver messages stay in `cause`, never in what a caller sees.
 */
export function databaseError(error: unknown, duplicate?: () => SwitchyardError): SwitchyardError {
  if (error instanceof SwitchyardError) return error;
  if (isDuplicateKeyError(error))
    return duplicate?.() ?? new SwitchyardError('already_exists', 'record already exists', [], { cause: error });
  if (isUnavailableError(error)) return new SwitchyardError('unavailable', 'database unavailable', [], { cause: error });
  if (codeOf(error) === 'ER_LOCK_DEADLOCK')
    return new SwitchyardError('aborted', 'concurrent update conflict, retry', [], { cause: error });
  return new SwitchyardError('internal', 'internal error', [], { cause: error });
}
