import { SwitchyardError } from '@switchyard/core';

interface S3ErrorFields {
  readonly name?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number | undefined };
}

function statusOf(error: unknown): number | undefined {
  return (error as S3ErrorFields | null)?.$metadata?.httpStatusCode;
}

function nameOf(error: unknown): unknown {
  return (error as S3ErrorFields | null)?.name;
}

/** The object is not there (GetObject says NoSuchKey, HeadObject a bare 404). A missing bucket is not this. */
export function isMissingObject(error: unknown): boolean {
  const name = nameOf(error);
  return name === 'NoSuchKey' || name === 'NotFound' || (statusOf(error) === 404 && name !== 'NoSuchBucket');
}

/** A multipart upload that is no longer there (completed or aborted meanwhile). */
export function isMissingUpload(error: unknown): boolean {
  return nameOf(error) === 'NoSuchUpload' || statusOf(error) === 404;
}

/** The server does not offer this operation at all (HTTP 501), as some S3-compatible servers answer. */
export function isNotImplemented(error: unknown): boolean {
  return nameOf(error) === 'NotImplemented' || statusOf(error) === 501;
}

/** A range that starts past the end of the object (HTTP 416). */
export function isUnsatisfiableRange(error: unknown): boolean {
  return nameOf(error) === 'InvalidRange' || statusOf(error) === 416;
}

/** Answers that mean "the store cannot serve us now": auth and bucket problems, throttling, server faults. */
const UNAVAILABLE_STATUSES = new Set([401, 403, 404, 408, 429]);

/**
 * The one mapping of S3 client failures: network errors, timeouts, missing
 * credentials and server-side answers are `unavailable`; a request S3 calls
 * malformed is our bug, `internal`. The SDK error stays in `cause`.
 */
export function s3Error(error: unknown): SwitchyardError {
  if (error instanceof SwitchyardError) return error;
  const status = statusOf(error);
  const ours = status !== undefined && status >= 400 && status < 500 && !UNAVAILABLE_STATUSES.has(status);
  return ours
    ? new SwitchyardError('internal', 'internal error', [], { cause: error })
    : new SwitchyardError('unavailable', 'blob storage unavailable', [], { cause: error });
}
