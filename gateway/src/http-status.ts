import { CHECKSUM_MISMATCH_FIELD, UNSUPPORTED_MEDIA_TYPE_FIELD, UPLOAD_BUSY_FIELD } from '@switchyard/core';
import { Code } from '@connectrpc/connect';

/**
 * The one map from error codes to HTTP statuses. Codes are the Connect code
 * names (docs/rest.md), the same set the library's SwitchyardError uses plus
 * the few only a transport produces; statuses are Connect's usual ones.
 */
export const HTTP_STATUS_OF = Object.freeze({
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
} as const);

export type ErrorCodeName = keyof typeof HTTP_STATUS_OF;

/**
 * Refinements HTTP clients expect, each tied to the code it refines: a request
 * body over its limit is `resource_exhausted` but 413 Content Too Large
 * (docs/rest.md); a known path asked with the wrong method is `unimplemented`
 * but 405 Method Not Allowed; a byte range that starts past the end of a file
 * is `out_of_range` but 416 Range Not Satisfiable; a client too slow to send
 * its request (headers, or a body that stalls) is `deadline_exceeded` but 408
 * Request Timeout, since the deadline it missed was its own; headers larger
 * than the server takes are `resource_exhausted` but 431; a file that fails a
 * request's If-Match or If-Unmodified-Since is `failed_precondition` but 412.
 */
export const CONTENT_TOO_LARGE = Object.freeze({ code: 'resource_exhausted', status: 413 } as const);
export const METHOD_NOT_ALLOWED = Object.freeze({ code: 'unimplemented', status: 405 } as const);
export const RANGE_NOT_SATISFIABLE = Object.freeze({ code: 'out_of_range', status: 416 } as const);
export const REQUEST_TIMEOUT = Object.freeze({ code: 'deadline_exceeded', status: 408 } as const);
export const HEADERS_TOO_LARGE = Object.freeze({ code: 'resource_exhausted', status: 431 } as const);
export const PRECONDITION_FAILED = Object.freeze({ code: 'failed_precondition', status: 412 } as const);
/** A file whose sniffed type the workspace policy refuses: `invalid_argument` with a detail on this field but 415. */
export const UNSUPPORTED_MEDIA_TYPE = Object.freeze({
  code: 'invalid_argument',
  status: 415,
  field: UNSUPPORTED_MEDIA_TYPE_FIELD,
} as const);
/** Bytes that do not match the request's Upload-Checksum: `invalid_argument` with a detail on this field but 460, tus's Checksum Mismatch. */
export const CHECKSUM_MISMATCH = Object.freeze({ code: 'invalid_argument', status: 460, field: CHECKSUM_MISMATCH_FIELD } as const);
/**
 * A resumable upload another request is working on (an append, or the finish): `unavailable` with a detail on this
 * field but 423 Locked, which tus clients retry, where on a 503 to HEAD tus-js-client would start the upload over.
 */
export const UPLOAD_LOCKED = Object.freeze({ code: 'unavailable', status: 423, field: UPLOAD_BUSY_FIELD } as const);
/** Refinements recognised by a detail field of the error. */
export const DETAIL_FIELD_STATUSES = Object.freeze([UNSUPPORTED_MEDIA_TYPE, CHECKSUM_MISMATCH, UPLOAD_LOCKED]);

/** Connect's numeric codes to their names (`Code.InvalidArgument` → `invalid_argument`). */
export const CODE_NAME_OF: Readonly<Record<Code, ErrorCodeName>> = Object.freeze({
  [Code.Canceled]: 'canceled',
  [Code.Unknown]: 'unknown',
  [Code.InvalidArgument]: 'invalid_argument',
  [Code.DeadlineExceeded]: 'deadline_exceeded',
  [Code.NotFound]: 'not_found',
  [Code.AlreadyExists]: 'already_exists',
  [Code.PermissionDenied]: 'permission_denied',
  [Code.ResourceExhausted]: 'resource_exhausted',
  [Code.FailedPrecondition]: 'failed_precondition',
  [Code.Aborted]: 'aborted',
  [Code.OutOfRange]: 'out_of_range',
  [Code.Unimplemented]: 'unimplemented',
  [Code.Internal]: 'internal',
  [Code.Unavailable]: 'unavailable',
  [Code.DataLoss]: 'data_loss',
  [Code.Unauthenticated]: 'unauthenticated',
});

export function isErrorCodeName(value: string): value is ErrorCodeName {
  return Object.hasOwn(HTTP_STATUS_OF, value);
}
