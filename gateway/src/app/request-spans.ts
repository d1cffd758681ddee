import type { IncomingMessage } from 'node:http';
import type { ServerSpan } from '@switchyard/runtime';

/** The span of each request in flight, by its Node request (Fastify's and the Connect adapter's share it). */
const spans = new WeakMap<IncomingMessage, ServerSpan>();

export function setSpan(req: IncomingMessage, span: ServerSpan): void {
  spans.set(req, span);
}

export function spanOf(req: IncomingMessage): ServerSpan | undefined {
  return spans.get(req);
}
