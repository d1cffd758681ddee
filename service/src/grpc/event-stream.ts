import { once } from 'node:events';
import type { ServerWritableStream } from '@grpc/grpc-js';

/**
 * Writes a watch's events to a server stream until the watch ends, the
 * client goes away or the server shuts down (`closing`). A slow reader slows
 * the watch (it catches up from the change log) instead of filling memory.
 */
export async function writeEvents<Req, Event, Message>(
  call: ServerWritableStream<Req, Message>,
  closing: AbortSignal,
  watch: (signal: AbortSignal) => AsyncIterable<Event>,
  toMessage: (event: Event) => Message,
): Promise<void> {
  const stop = AbortSignal.any([closing, cancelled(call)]);
  for await (const event of watch(stop)) {
    if (stop.aborted) break;
    if (!call.write(toMessage(event))) await once(call, 'drain', { signal: stop }).catch(() => undefined);
  }
}

function cancelled(call: ServerWritableStream<unknown, unknown>): AbortSignal {
  const controller = new AbortController();
  if (call.cancelled) controller.abort();
  else call.once('cancelled', () => controller.abort());
  return controller.signal;
}
