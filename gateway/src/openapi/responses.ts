import { ErrorSchema } from '../rest/schemas.js';

/** What each error status of the API means, as the OpenAPI document describes it. */
const MEANING = {
  400: '`invalid_argument`: malformed id, body, form, query or field (details name the field).',
  401: '`unauthenticated`: missing, malformed, expired or wrongly signed bearer token.',
  403: '`permission_denied`: the token lacks the scope this operation needs.',
  404: "`not_found`: no such record in the caller's workspace (records of other workspaces do not exist for the caller).",
  408: '`deadline_exceeded`: the client stopped sending its request body; nothing was stored.',
  409: '`already_exists`: the workspace has a route with the same method and path shape.',
  413: "`resource_exhausted`: the file is larger than the workspace policy's maxUploadBytes or MAX_UPLOAD_BYTES (or the JSON body larger than its limit); refused while it streams, nothing stored.",
  415: "`invalid_argument`: the file's sniffed media type is not in the workspace policy's allowedTypes; refused as soon as it is known, nothing stored.",
  429: '`resource_exhausted`: the workspace is over its rate limit; `Retry-After` says when to try again.',
  500: '`internal`: a bug; the message says nothing more.',
  503: '`unavailable`: the service, its database or blob store does not answer, or a capacity bound was reached; retry later (`Retry-After` when known).',
} as const;

export type ErrorStatus = keyof typeof MEANING;

/** Every authenticated operation can answer these. */
const ALWAYS: readonly ErrorStatus[] = [401, 403, 429, 500, 503];

/** Response schemas for the error statuses of an operation: the ones it names, plus those of every authenticated call. */
export function errorResponses(...statuses: ErrorStatus[]): Record<number, typeof ErrorSchema> {
  const responses: Record<number, typeof ErrorSchema> = {};
  for (const status of [...statuses, ...ALWAYS].sort((a, b) => a - b)) responses[status] = ErrorSchema.describe(MEANING[status]);
  return responses;
}

/** Error statuses any request can get from the HTTP server itself, token or not (a client too slow to send its request). */
export function transportErrors(): Record<number, typeof ErrorSchema> {
  return { 408: ErrorSchema.describe(MEANING[408]) };
}
