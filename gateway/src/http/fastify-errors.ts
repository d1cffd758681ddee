import type { FastifyError } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorDetail } from '@switchyard/core';
import { ApiError, contentTooLarge, invalidRequest } from './api-error.js';

/**
 * Fastify's own refusals (a body over its limit, a content type no route
 * takes, JSON that does not parse, a request that fails its zod schema) as
 * the contract's errors; anything else passes through unchanged.
 */
export function fromFastify(error: unknown): unknown {
  if (!isFastifyError(error)) return error;
  if (hasZodFastifySchemaValidationErrors(error)) return schemaFailure(error);
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return contentTooLarge('body', 'the JSON body is larger than its limit (JSON_BODY_LIMIT_BYTES)');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return invalidRequest('content-type', 'this endpoint takes application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidRequest('body', 'is empty; send a JSON object');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidRequest('content-length', 'does not match the body');
  }
  // JSON.parse's and secure-json-parse's errors (prototype poisoning included) carry status 400.
  if (error.statusCode === 400) return invalidRequest('body', `is not valid JSON (${error.message})`);
  if (error.statusCode === 404) return new ApiError('not_found', error.message);
  return error;
}

function isFastifyError(error: unknown): error is FastifyError {
  return (
    error instanceof Error && (typeof (error as FastifyError).code === 'string' || typeof (error as FastifyError).statusCode === 'number')
  );
}

type ValidationFailure = FastifyError & { validation: NonNullable<FastifyError['validation']> };

/** One detail per problem, named by its top-level field (as the service names them), or by the part of the request when the whole is wrong. */
function schemaFailure(error: ValidationFailure): ApiError {
  const part = error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? 'body');
  const details: ErrorDetail[] = error.validation.flatMap((issue): ErrorDetail[] => {
    const entry = entryOf(issue.instancePath);
    const field = entry ?? issue.instancePath.split('/').find(Boolean) ?? part;
    const keys = (issue.params as { keys?: unknown }).keys;
    if (issue.keyword === 'unrecognized_keys' && Array.isArray(keys))
      return keys.map((key) => ({
        field: entry ? `${entry}.${String(key)}` : String(key),
        reason: issue.message ?? 'is not a field here',
      }));
    return [{ field, reason: issue.message ?? 'is invalid' }];
  });
  return new ApiError('invalid_argument', details.map((d) => `${d.field}: ${d.reason}`).join('; '), details, { cause: error });
}

/**
 * An entry of an array of objects is named by its index, as the service names
 * it (`/routes/3/path` is `routes[3].path`, `/routes/3` is `routes[3]`); an
 * item of a list of names (`/middleware/1`) stays its top-level field.
 */
function entryOf(instancePath: string): string | undefined {
  const [field, index, inner] = instancePath.split('/').filter(Boolean);
  if (field === undefined || index === undefined || !/^\d+$/.test(index)) return undefined;
  if (inner !== undefined) return /^\d+$/.test(inner) ? undefined : `${field}[${index}].${inner}`;
  return OBJECT_LISTS.has(field) ? `${field}[${index}]` : undefined;
}

/** Body fields that are lists of objects. */
const OBJECT_LISTS = new Set(['routes']);
