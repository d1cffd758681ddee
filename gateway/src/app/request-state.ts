import type { IncomingMessage, ServerResponse } from 'node:http';
import { EndableLifetime, KEY_ID_HEADER, type ServerSpan } from '@switchyard/runtime';
import type { KeyIdMemo } from './key-id-memo.js';

/** What the gateway keeps of a request in flight: its span, and its lifetime (ended when the client goes away unanswered). */
interface RequestState {
  /** The id the gateway gave the request (Fastify's `request.id`), for handlers that see only the Node request. */
  readonly requestId: string;
  readonly span: ServerSpan;
  readonly lifetime: EndableLifetime;
  /** The API key the service said authenticated a call made for the request (for the access line and span). */
  keyId: string | undefined;
  /** The key the request's secret belongs to, as the service named it for an earlier request (the memo's). */
  rememberedKeyId: string | undefined;
  /** The gateway's memo of which key each recent secret belongs to. */
  readonly memo: KeyIdMemo | undefined;
}

/** `Bearer sy_…`: the request presents an API key, whose id only the service can tell. */
const PRESENTS_KEY = /^bearer\s+sy_/i;

/**
 * By the Node request, which Fastify's handlers and the Connect adapter's share.
 * An entry is deleted when its response closes (forgetRequestState), not left
 * to the key's collection: V8's young-generation GC keeps a WeakMap entry's
 * value alive until a full GC, so each request's state, and what it reaches,
 * was promoted to the old generation (bench/hand-written-parts.md#no-literal-getters).
 */
const states = new WeakMap<IncomingMessage, RequestState>();

/**
 * Starts keeping `req`'s state; the caller ends the lifetime when the
 * response closes unfinished (the gateway's onRequest hook does, in the close
 * listener it has for the access log anyway).
 */
export function keepRequestState(req: IncomingMessage, requestId: string, span: ServerSpan, memo?: KeyIdMemo): EndableLifetime {
  const lifetime = new EndableLifetime();
  states.set(req, { requestId, span, lifetime, keyId: undefined, rememberedKeyId: undefined, memo });
  return lifetime;
}

/** Drops `req`'s state once its response has closed and the access line has read it. */
export function forgetRequestState(req: IncomingMessage): void {
  states.delete(req);
}

/** The id the gateway gave `req`, while its state is kept. */
export function requestIdKept(req: IncomingMessage): string | undefined {
  return states.get(req)?.requestId;
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

/**
 * The id of the API key that authenticated `req`'s service calls, once the
 * service has named it: for this request, or (from the memo) for an earlier
 * one with the same secret, except when the answer is 401, the key refused.
 */
export function keyIdOf(req: IncomingMessage, status: number): string | undefined {
  const state = states.get(req);
  if (state === undefined) return undefined;
  return state.keyId ?? (status === 401 ? undefined : state.rememberedKeyId);
}

/**
 * For the service calls made on behalf of `req`, when it presents an API key
 * the memo does not name: reads the key's id from the service's response
 * headers, or a client stream's trailer (KEY_ID_HEADER), and remembers it.
 * No listener for any other request: in process, headers are only made when
 * read.
 */
export function keyIdListener(req: IncomingMessage): ((header: Headers) => void) | undefined {
  const state = states.get(req);
  const authorization = req.headers.authorization;
  if (state === undefined || authorization === undefined || !PRESENTS_KEY.test(authorization)) return undefined;
  const remembered = state.memo?.get(authorization);
  if (remembered !== undefined) {
    state.rememberedKeyId = remembered;
    return undefined;
  }
  return (header) => {
    const keyId = header.get(KEY_ID_HEADER);
    if (keyId === null) return;
    state.keyId = keyId;
    state.memo?.remember(authorization, keyId);
  };
}
