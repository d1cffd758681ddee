import { ConnectError } from '@connectrpc/connect';
import { isSwitchyardError, type ErrorDetail } from '../../../lib/src/errors.js';
import { CODE_NAME_OF, CONTENT_TOO_LARGE, HTTP_STATUS_OF, METHOD_NOT_ALLOWED, type ErrorCodeName } from '../http-status.js';

/** Trailer in which the service sends an error's details as JSON (service/src/grpc/error-mapping.ts). */
export const SERVICE_ERROR_DETAILS_KEY = 'switchyard-error-details';

/** The error body of CONTRACT.md. */
export interface ApiErrorBody {
  readonly code: ErrorCodeName;
  readonly message: string;
  readonly details: readonly ErrorDetail[];
}

/** An error on its way to an HTTP client: a code, a message safe to show, details, and its status. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCodeName,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = options.status ?? HTTP_STATUS_OF[code];
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

export function methodNotAllowed(method: string, allowed: readonly string[]): ApiError {
  return new ApiError(METHOD_NOT_ALLOWED.code, `method ${method} is not allowed here; use ${allowed.join(' or ')}`, [], { status: METHOD_NOT_ALLOWED.status });
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
 * reaches a client. `bodyLimited` marks calls that consume a request body,
 * where `resource_exhausted` means the body is over its limit (413).
 */
export function toApiError(error: unknown, options: { bodyLimited?: boolean } = {}): ApiError {
  const converted = convert(error);
  if (options.bodyLimited && converted.code === CONTENT_TOO_LARGE.code && converted.status !== CONTENT_TOO_LARGE.status) {
    return new ApiError(converted.code, converted.message, converted.details, { status: CONTENT_TOO_LARGE.status, cause: error });
  }
  return converted;
}

function convert(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isSwitchyardError(error)) {
    return error.code === 'internal' ? internal(error) : new ApiError(error.code, error.message, error.details, { cause: error });
  }
  if (error instanceof ConnectError) {
    const code = CODE_NAME_OF[error.code] ?? 'unknown';
    const described = error.metadata.get(SERVICE_ERROR_DETAILS_KEY);
    const details = parseDetails(described);
    if (HTTP_STATUS_OF[code] >= 500 && (described === null || code === 'internal' || code === 'unknown' || code === 'data_loss')) {
      return new ApiError(code, GENERIC_MESSAGES[code] ?? 'internal error', [], { cause: error });
    }
    return new ApiError(code, error.rawMessage, details, { cause: error });
  }
  return internal(error);
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
