import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * For handlers that write the Node response themselves (file streams, the
 * Connect protocol): the headers hooks set on the reply (CORS, request id)
 * are put on the raw response, and Fastify is told to keep out.
 */
export function takeOverResponse(reply: FastifyReply): ServerResponse {
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value as string | number | readonly string[]);
  reply.hijack();
  return res;
}
