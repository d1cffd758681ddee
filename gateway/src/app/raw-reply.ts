import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Puts the headers hooks set on the reply (CORS, request id, API headers) on the raw response, for a handler that writes it itself. */
export function copyHookHeaders(reply: FastifyReply): void {
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
}

/**
 * For handlers that write the Node response themselves (file streams, the
 * Connect protocol): the headers hooks set on the reply (CORS, request id)
 * are put on the raw response, and Fastify is told to keep out.
 */
export function takeOverResponse(reply: FastifyReply): ServerResponse {
  copyHookHeaders(reply);
  reply.hijack();
  return reply.raw;
}
