import { randomUUID } from 'node:crypto';

/** The header (HTTP) and metadata key (gRPC) that carries a request id. */
export const REQUEST_ID_KEY = 'x-request-id';

/** Request ids are echoed into logs, headers and metadata, so only short printable ones are taken over. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's request id when it is a sane one, else a fresh UUID. */
export function requestIdFrom(supplied: unknown): string {
  return typeof supplied === 'string' && SANE_REQUEST_ID.test(supplied) ? supplied : randomUUID();
}
