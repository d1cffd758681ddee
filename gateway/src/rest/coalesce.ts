import { performance } from 'node:perf_hooks';
import { handOver } from '@switchyard/runtime';

export interface CoalesceOptions {
  /**
   * When this long has passed since the last chunk went out (or the start),
   * what is held is sent even below the target, checked as each piece arrives. A slow client's bytes then reach the service steadily, so
   * the service's upload idle timeout sees a slow upload, not a stalled one
   * (at 10 KiB/s, 1 MiB would otherwise take 100 s to gather).
   */
  readonly maxHoldMs?: number;
  /** Milliseconds on the clock the hold is measured by: the gateway's time; a monotonic clock by default. */
  readonly now?: () => number;
}

/**
 * Joins small pieces into chunks of about `targetBytes`. Multipart parsing
 * yields pieces of a few KiB to 64 KiB; sending each as its own gRPC message
 * costs more in framing and per-message work than the copy does here. A
 * joined chunk is this function's own, so it is handed over (runtime's
 * handOver): the in-process channel passes it on without a second copy.
 */
export async function* coalesce(
  pieces: AsyncIterable<Uint8Array>,
  targetBytes: number,
  options: CoalesceOptions = {},
): AsyncGenerator<Uint8Array> {
  const { maxHoldMs = Infinity, now = () => performance.now() } = options;
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let sentAt = now();
  for await (const piece of pieces) {
    if (piece.byteLength === 0) continue;
    held.push(piece);
    heldBytes += piece.byteLength;
    if (heldBytes >= targetBytes || now() - sentAt >= maxHoldMs) {
      yield held.length === 1 ? held[0]! : handOver(Buffer.concat(held, heldBytes));
      held = [];
      heldBytes = 0;
      // From when the consumer asks for more: time it spent sending is not the client's.
      sentAt = now();
    }
  }
  if (heldBytes > 0) yield held.length === 1 ? held[0]! : handOver(Buffer.concat(held, heldBytes));
}
