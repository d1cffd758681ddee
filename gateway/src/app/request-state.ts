import type { IncomingMessage, ServerResponse } from 'node:http';
import { EndableLifetime, type ServerSpan } from '@switchyard/runtime';

/** What the gateway keeps of a request in flight: its span, and its lifetime (ended when the client goes away unanswered). */
interface RequestState {
  readonly span: ServerSpan;
  readonly lifetime: EndableLifetime;
}

/** By the Node request, which Fastify's handlers and the Connect adapter's share. */
const states = new WeakMap<IncomingMessage, RequestState>();

/**
 * Starts keeping `req`'s state; the caller ends the lifetime when the
 * response closes unfinished (the gateway's onRequest hook does, in the close
 * listener it has for the access log anyway).
 */
export function keepRequestState(req: IncomingMessage, span: ServerSpan): EndableLifetime {
  const lifetime = new EndableLifetime();
  states.set(req, { span, lifetime });
  return lifetime;
}

export function spanOf(req: IncomingMessage): ServerSpan | undefined {
  return states.get(req)?.span;
}

/** The request's lifetime; one that follows `res` itself for a request the hook never saw. */
export function lifetimeOf(req: IncomingMessage, res: ServerResponse): EndableLifetime {
  const kept = states.get(req)?.lifetime;
  if (kept !== undefined) return kept;
  const lifetime = new EndableLifetime();
  if (res.closed) {
    if (!res.writableFinished) lifetime.end();
  } else res.once('close', () => void (res.writableFinished || lifetime.end()));
  return lifetime;
}
