import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/** Echoed into logs, response headers and gRPC metadata, so only short printable ids are taken over. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `x-request-id` when it is a sane one, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const supplied = req.headers[REQUEST_ID_HEADER];
  return typeof supplied === 'string' && SANE_REQUEST_ID.test(supplied) ? supplied : randomUUID();
}
