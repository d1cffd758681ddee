/**
 * The one error class of Switchyard. Every failure the library reports is a
 * SwitchyardError with a code from a closed set (the Connect code names), so
 * each transport maps codes to its own statuses in one place.
 */

/** The closed set of error codes, in the Connect spelling. */
export const ERROR_CODES = [
  'invalid_argument',
  'unauthenticated',
  'permission_denied',
  'not_found',
  'already_exists',
  'resource_exhausted',
  'failed_precondition',
  'aborted',
  'out_of_range',
  'canceled',
  'deadline_exceeded',
  'unimplemented',
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One structured detail: which field (if any) and why it was refused. */
export interface ErrorDetail {
  readonly field?: string;
  readonly reason: string;
}

export class SwitchyardError extends Error {
  override readonly name = 'SwitchyardError';
  readonly code: ErrorCode;
  readonly details: readonly ErrorDetail[];
  /**
   * For `resource_exhausted` and `unavailable`: how long the caller should wait
   * before trying again, when the server knows (a rate limit's refill time).
   * Transports carry it as their retry hint (gRPC trailer, HTTP Retry-After).
   */
  readonly retryAfterMs: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    details: readonly ErrorDetail[] = [],
    options?: { cause?: unknown; retryAfterMs?: number | undefined },
  ) {
    super(message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    this.details = Object.freeze([...details]);
    this.retryAfterMs = options?.retryAfterMs;
  }
}

export function isSwitchyardError(error: unknown): error is SwitchyardError {
  return error instanceof SwitchyardError;
}

/** Shorthand for the most common refusal: one field, one reason. */
export function invalidArgument(field: string, reason: string): SwitchyardError {
  return new SwitchyardError('invalid_argument', `${field}: ${reason}`, [{ field, reason }]);
}

/**
 * Turns anything thrown into a SwitchyardError. Errors that are already ours
 * pass through; anything else becomes `internal` with the original as cause,
 * so no stack trace or driver message reaches a caller.
 */
export function toSwitchyardError(error: unknown): SwitchyardError {
  if (error instanceof SwitchyardError) return error;
  return new SwitchyardError('internal', 'internal error', [], { cause: error });
}
