import type { ClientHttp2Session, Http2Session, ServerHttp2Stream } from 'node:http2';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sleep, systemTime, type Timers } from '@switchyard/core';

/**
 * Why an upload's end needs confirming: Node's `Http2Stream.close(code)` — what
 * grpc-js and Connect clients call to cancel — ends the writable side (sending
 * END_STREAM) and only then resets the stream. A client that cancels while it
 * has nothing left to send therefore looks, for a moment, exactly like a client
 * that finished its upload; committing at that moment would store a truncated
 * file.
 *
 * The reset leaves the client right behind the END_STREAM, so a PING round trip
 * on the same connection is a barrier: TCP delivers in order, so by the time
 * the PING is acknowledged any reset sent before the acknowledgement has been
 * processed. The fallback grace (when the stream cannot be found) waits on `timers`.
 */
export async function endWasCancelled(call: object, timers: Timers = systemTime): Promise<boolean> {
  // In-process calls have no socket to race: their end and their cancel are known exactly.
  if (IN_PROCESS_CALL in call) return isCancelled(call);
  const stream = http2StreamOf(call);
  if (!stream) {
    // grpc-js internals moved: fall back to a short grace period for the reset.
    await sleep(timers, FALLBACK_GRACE_MS);
    return isCancelled(call);
  }
  if (!isReset(stream) && !stream.session?.destroyed) await pingBarrier(stream.session, timers);
  // Stream 'close' and grpc-js's cancel notice run on the next ticks.
  await nextTurn();
  return isReset(stream) || isCancelled(call);
}

export const FALLBACK_GRACE_MS = 20;

/** Marks the call objects of the in-process channel (in-process/server-calls.ts). */
export const IN_PROCESS_CALL = Symbol('switchyard.in-process-call');

function isReset(stream: ServerHttp2Stream): boolean {
  return stream.aborted || stream.destroyed || (stream.rstCode !== undefined && stream.rstCode !== 0);
}

function isCancelled(call: object): boolean {
  return (call as { cancelled?: unknown }).cancelled === true;
}

/** The HTTP/2 stream behind a grpc-js server call (a private field: checked, never trusted). */
function http2StreamOf(call: object): ServerHttp2Stream | undefined {
  const stream = (call as { call?: { stream?: unknown } }).call?.stream as ServerHttp2Stream | undefined;
  return typeof stream?.session?.ping === 'function' && typeof stream.aborted === 'boolean' ? stream : undefined;
}

type Session = Http2Session | ClientHttp2Session | undefined;
const barriers = new WeakMap<object, { next?: Promise<void> }>();

/**
 * Resolves once a PING sent after this call is acknowledged. Waiters arriving
 * in the same turn share one PING, so a burst of uploads finishing together
 * stays within Node's limit of outstanding PINGs.
 */
function pingBarrier(session: Session, timers: Timers): Promise<void> {
  if (!session) return sleep(timers, FALLBACK_GRACE_MS);
  let state = barriers.get(session);
  if (!state) barriers.set(session, (state = {}));
  const current = state;
  current.next ??= Promise.resolve()
    .then(() => nextTurn())
    .then(() => {
      current.next = undefined;
      return ping(session, timers);
    });
  return current.next;
}

function ping(session: Http2Session | ClientHttp2Session, timers: Timers): Promise<void> {
  return new Promise((resolve) => {
    try {
      // An error (connection gone) resolves too: the stream's state then tells.
      if (!session.ping(() => resolve())) void sleep(timers, FALLBACK_GRACE_MS).then(() => resolve());
    } catch {
      resolve();
    }
  });
}
