import { Metadata, status as Status, type StatusObject } from '@grpc/grpc-js';
import { toSwitchyardError, type ErrorCode, type ErrorDetail } from '@switchyard/core';
import type { Logger } from '@switchyard/runtime';
import { encodeStatusDetails, STATUS_DETAILS_KEY } from './status-details.js';

/** The one table from library codes to gRPC status codes. */
export const GRPC_STATUS_OF: Readonly<Record<ErrorCode, Status>> = Object.freeze({
  invalid_argument: Status.INVALID_ARGUMENT,
  unauthenticated: Status.UNAUTHENTICATED,
  permission_denied: Status.PERMISSION_DENIED,
  not_found: Status.NOT_FOUND,
  already_exists: Status.ALREADY_EXISTS,
  resource_exhausted: Status.RESOURCE_EXHAUSTED,
  failed_precondition: Status.FAILED_PRECONDITION,
  aborted: Status.ABORTED,
  out_of_range: Status.OUT_OF_RANGE,
  canceled: Status.CANCELLED,
  deadline_exceeded: Status.DEADLINE_EXCEEDED,
  unimplemented: Status.UNIMPLEMENTED,
  unavailable: Status.UNAVAILABLE,
  internal: Status.INTERNAL,
});

/**
 * Trailer with the library's details as JSON (`[{"field"?, "reason"}]`), for
 * clients such as the gateway that want them without decoding google.rpc
 * messages. Non-ASCII is \u-escaped: ASCII metadata must be printable.
 */
export const ERROR_DETAILS_KEY = 'switchyard-error-details';

/**
 * Trailer with the milliseconds a caller should wait before retrying (a rate
 * limit's refill time), as plain ASCII digits for clients such as the gateway,
 * which turns it into `Retry-After`; standard clients find the same delay in
 * the `google.rpc.RetryInfo` of `grpc-status-details-bin`.
 */
export const RETRY_AFTER_MS_KEY = 'switchyard-retry-after-ms';

export type GrpcErrorStatus = Pick<StatusObject, 'code' | 'details' | 'metadata'>;

/**
 * Turns anything a handler threw into the status sent to the client. Our own
 * errors keep their message and details; anything else becomes INTERNAL with a
 * generic message, and its stack goes to the log, never to the caller.
 */
export function toGrpcStatus(error: unknown, log: Logger): GrpcErrorStatus {
  const failure = toSwitchyardError(error);
  if (failure.code === 'internal') {
    log.error({ err: failure.cause ?? failure }, 'internal error');
  } else if (failure.code === 'unavailable') {
    log.warn({ err: failure.cause ?? failure }, 'dependency unavailable');
  }
  const code = GRPC_STATUS_OF[failure.code];
  const message = failure.code === 'internal' ? 'internal error' : failure.message;
  const details = failure.code === 'internal' ? [] : failure.details;
  const metadata = new Metadata();
  metadata.set(ERROR_DETAILS_KEY, asciiJson(details));
  const retryAfterMs =
    failure.code === 'internal' || failure.retryAfterMs === undefined ? undefined : Math.max(0, Math.ceil(failure.retryAfterMs));
  if (retryAfterMs !== undefined) metadata.set(RETRY_AFTER_MS_KEY, String(retryAfterMs));
  metadata.set(STATUS_DETAILS_KEY, Buffer.from(encodeStatusDetails(code, message, failure.code, details, retryAfterMs)));
  return { code, details: message, metadata };
}

function asciiJson(details: readonly ErrorDetail[]): string {
  return JSON.stringify(details).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
