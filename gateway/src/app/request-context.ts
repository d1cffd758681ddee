import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '@switchyard/runtime';
import { createContext, type RequestContext } from '../http/context.js';
import { keyIdListener, lifetimeOf, spanOf } from './request-state.js';

/** The handler's view of one request (its id, logger, lifetime and call options to the service). */
export function contextOf(
  request: FastifyRequest,
  reply: FastifyReply,
  log: Logger,
  params: Readonly<Record<string, string>> = {},
): RequestContext {
  return createContext(request.raw, reply.raw, {
    requestId: request.id,
    gatewayLog: log,
    params,
    url: request.url,
    span: spanOf(request.raw),
    onHeader: keyIdListener(request.raw),
    lifetime: lifetimeOf(request.raw, reply.raw),
  });
}
