import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '@switchyard/runtime';
import { createContext, type RequestContext } from '../http/context.js';
import { spanOf } from './request-spans.js';

/** The handler's view of one request (its id, logger, abort signal and call options to the service). */
export function contextOf(request: FastifyRequest, reply: FastifyReply, log: Logger, params: Readonly<Record<string, string>> = {}): RequestContext {
  const queryAt = request.url.indexOf('?');
  return createContext(request.raw, reply.raw, { requestId: request.id, gatewayLog: log, params, query: new URLSearchParams(queryAt === -1 ? '' : request.url.slice(queryAt + 1)), span: spanOf(request.raw) });
}
