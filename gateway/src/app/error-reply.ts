import type { FastifyReply } from 'fastify';
import type { Logger } from '@switchyard/runtime';
import { ApiError, toApiError } from '../http/api-error.js';
import { bearerChallenge } from '../http/authorization.js';
import { fromFastify } from '../http/fastify-errors.js';

export type ExtraHeaders = Readonly<Record<string, string | number>>;

/**
 * The one place where an error becomes an HTTP answer: the contract's body,
 * the status of its code, Retry-After when the client should wait, the
 * Bearer challenge on 401. A response already under way (a file half sent)
 * cannot honestly report an error: the connection is cut, so the client sees
 * a truncated body instead of a wrong one.
 */
export function replyWithError(reply: FastifyReply, error: ApiError, headers: ExtraHeaders = {}): FastifyReply | undefined {
  if (reply.raw.headersSent) {
    reply.raw.destroy();
    return undefined;
  }
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', error.retryAfterSeconds);
  // A 401 names the scheme to authenticate with (RFC 9110 §11.6.1).
  if (error.status === 401) reply.header('www-authenticate', bearerChallenge(reply.request.raw));
  return reply
    .code(error.status)
    .headers({ 'cache-control': 'no-store', ...error.headers, ...headers })
    .send(error.body());
}

/** Fastify's error handler: anything thrown, mapped and logged once. */
export function errorHandler(log: Logger) {
  return (error: unknown, request: { id: string }, reply: FastifyReply): void => {
    const failure = toApiError(fromFastify(error));
    if (failure.code === 'internal' || failure.code === 'unknown')
      log.error({ requestId: request.id, err: failure.cause ?? failure }, 'request failed');
    else if (failure.status >= 500)
      log.warn({ requestId: request.id, code: failure.code, reason: describe(failure.cause) }, 'request failed');
    replyWithError(reply, failure);
  };
}

function describe(cause: unknown): string | undefined {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a thrown non-Error (usually a string): String() is all we know of it
  return cause instanceof Error ? cause.message : cause === undefined ? undefined : String(cause);
}
