import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-error.js';

/** What gRPC metadata can carry: printable ASCII (grpc-js drops anything else, and would log it). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The caller's `Authorization` value to pass on to the service, undefined when
 * there is none. The service verifies the token; the gateway only refuses what
 * it cannot pass on faithfully:
 *
 * - More than one `Authorization` header. Node keeps the first and drops the
 *   rest, so the service would judge a request by a credential the client may
 *   not have meant (and a proxy in front may have judged by another). The
 *   service refuses several `authorization` entries in gRPC metadata the same
 *   way.
 * - A value that is not printable ASCII (a tab, latin-1 bytes). No bearer token
 *   contains one, and gRPC metadata cannot carry it.
 *
 * Refusals are 401 `unauthenticated` and never repeat what was sent.
 */
export function authorizationOf(req: IncomingMessage): string | undefined {
  const values = req.headersDistinct['authorization'];
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw refuse('send exactly one Authorization header');
  const [value] = values as [string];
  if (!PRINTABLE_ASCII.test(value)) throw refuse('malformed Authorization header');
  return value;
}

function refuse(reason: string): ApiError {
  return new ApiError('unauthenticated', reason, [{ field: 'authorization', reason }]);
}

/**
 * The challenge of a 401 (RFC 9110 §11.6.1 requires one; RFC 6750 §3 gives
 * its form): a missing credential gets the bare scheme, a refused one
 * `error="invalid_token"`. The reason stays in the JSON body.
 */
export function bearerChallenge(req: IncomingMessage | undefined): string {
  const presented = req?.headers.authorization !== undefined;
  return presented ? 'Bearer realm="switchyard", error="invalid_token"' : 'Bearer realm="switchyard"';
}
