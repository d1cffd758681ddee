import { ConnectError } from '@connectrpc/connect';
import { isSwitchyardError, type ErrorDetail } from '@switchyard/core';
import {
  CODE_NAME_OF,
  CONTENT_TOO_LARGE,
  HTTP_STATUS_OF,
  METHOD_NOT_ALLOWED,
  REQUEST_TIMEOUT,
  DETAIL_FIELD_STATUSES,
  type ErrorCodeName,
} from '../http-status.js';

/** Trailer in which the service sends an error's details as JSON (service/src/grpc/error-mapping.ts). */
export const SERVICE_ERROR_DETAILS_KEY = 'switchyard-error-details';
/** Trailer in which the service says how many milliseconds to wait before retrying (a rate limit's refill time). */
export const SERVICE_RETRY_AFTER_MS_KEY = 'switchyard-retry-after-ms';

/** The error body of every REST failure (docs/rest.md). */
export interface ApiErrorBody {
  readonly code: ErrorCodeName;
  readonly message: string;
  readonly details: readonly ErrorDetail[];
}

/** An error on its way to an HTTP client: a code, a message safe to show, details, and its status. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  /** Whole seconds for the `Retry-After` header (429 from a rate limit, 503 at a capacity bound); undefined sends none. */
  readonly retryAfterSeconds: number | undefined;
  /** Headers the answer carries besides the body (`Allow` on 405, `Content-Range` on 416, validators on 412). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCodeName,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
    options: { status?: number; cause?: unknown; retryAfterSeconds?: number | undefined; headers?: Readonly<Record<string, string>> } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = options.status ?? HTTP_STATUS_OF[code];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
  }

  body(): ApiErrorBody {
    return { code: this.code, message: this.message, details: this.details };
  }
}

export function invalidRequest(field: string, reason: string): ApiError {
  return new ApiError('invalid_argument', `${field}: ${reason}`, [{ field, reason }]);
}

export function contentTooLarge(field: string, reason: string): ApiError {
  return new ApiError(CONTENT_TOO_LARGE.code, `${field}: ${reason}`, [{ field, reason }], { status: CONTENT_TOO_LARGE.status });
}

/** The client took longer than its timeout to send its request; nothing it sent was kept. */
export function requestTimeout(reason: string): ApiError {
  return new ApiError(REQUEST_TIMEOUT.code, `request timeout: ${reason}`, [{ reason }], { status: REQUEST_TIMEOUT.status });
}

/** A capacity bound of this gateway was reached (connections, uploads in flight): retry shortly. */
export function overloaded(message: string, retryAfterSeconds = 1): ApiError {
  return new ApiError('unavailable', message, [], { retryAfterSeconds });
}

export function methodNotAllowed(method: string, allowed: readonly string[]): ApiError {
  return new ApiError(METHOD_NOT_ALLOWED.code, `method ${method} is not allowed here; use ${allowed.join(' or ')}`, [], {
    status: METHOD_NOT_ALLOWED.status,
    headers: { allow: allowed.join(', ') },
  });
}

const GENERIC_MESSAGES: Partial<Record<ErrorCodeName, string>> = {
  unavailable: 'the service is unavailable; try again later',
  deadline_exceeded: 'the service did not answer in time',
};

/**
 * Turns anything thrown into an ApiError. Errors from the service (ConnectError
 * from the gRPC client) keep their code, message and details; a server-side
 * failure the service did not describe itself (a refused connection, a
 * protocol error) gets a generic message, so no address, driver text or stack
 * reaches a client. Errors marked by a detail field get their own status
 * (http-status.ts: 415, 460, 423). `bodyLimited` marks calls that consume a
 * request body, where `resource_exhausted` without a retry hint means the
 * body is over its limit (413; with a hint it is a rate limit, 429), and
 * `deadline_exceeded` means the client stopped sending it (408).
 */
export function toApiError(error: unknown, options: { bodyLimited?: boolean } = {}): ApiError {
  const converted = convert(error);
  const refined = DETAIL_FIELD_STATUSES.find(
    (refinement) => converted.code === refinement.code && converted.details.some((detail) => detail.field === refinement.field),
  );
  if (refined !== undefined)
    return new ApiError(converted.code, converted.message, converted.details, {
      status: refined.status,
      retryAfterSeconds: converted.retryAfterSeconds,
      cause: error,
    });
  if (!options.bodyLimited) return converted;
  if (
    converted.code === CONTENT_TOO_LARGE.code &&
    converted.retryAfterSeconds === undefined &&
    converted.status !== CONTENT_TOO_LARGE.status
  ) {
    return new ApiError(converted.code, converted.message, converted.details, { status: CONTENT_TOO_LARGE.status, cause: error });
  }
  if (
    converted.code === REQUEST_TIMEOUT.code &&
    converted.status !== REQUEST_TIMEOUT.status &&
    error instanceof ConnectError &&
    error.metadata.get(SERVICE_ERROR_DETAILS_KEY) !== null
  ) {
    return new ApiError(converted.code, converted.message, converted.details, { status: REQUEST_TIMEOUT.status, cause: error });
  }
  return converted;
}

function convert(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isSwitchyardError(error)) {
    return error.code === 'internal'
      ? internal(error)
      : new ApiError(error.code, error.message, error.details, { cause: error, retryAfterSeconds: seconds(error.retryAfterMs) });
  }
  if (error instanceof ConnectError) {
    const code = CODE_NAME_OF[error.code] ?? 'unknown';
    const described = error.metadata.get(SERVICE_ERROR_DETAILS_KEY);
    const details = parseDetails(described);
    if (HTTP_STATUS_OF[code] >= 500 && (described === null || code === 'internal' || code === 'unknown' || code === 'data_loss')) {
      return new ApiError(code, GENERIC_MESSAGES[code] ?? 'internal error', [], { cause: error });
    }
    const retryAfterMs = Number(error.metadata.get(SERVICE_RETRY_AFTER_MS_KEY) ?? NaN);
    return new ApiError(code, error.rawMessage, details, {
      cause: error,
      retryAfterSeconds: seconds(Number.isFinite(retryAfterMs) ? retryAfterMs : undefined),
    });
  }
  return internal(error);
}

/** Retry-After takes whole seconds; rounding up (at least 1) keeps a client from retrying before a token is back. */
function seconds(ms: number | undefined): number | undefined {
  return ms === undefined || ms < 0 ? undefined : Math.max(1, Math.ceil(ms / 1000));
}

function internal(cause: unknown): ApiError {
  return new ApiError('internal', 'internal error', [], { cause });
}

function parseDetails(json: string | null): ErrorDetail[] {
  if (json === null) return [];
  try {
    const parsed: unknown = JSON.parse(json);
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((item: unknown): ErrorDetail[] => {
      if (typeof item !== 'object' || item === null) return [];
      const { field, reason } = item as Record<string, unknown>;
      if (typeof reason !== 'string') return [];
      return [typeof field === 'string' ? { field, reason } : { reason }];
    });
  } catch {
    return [];
  }
}
