import { Readable } from 'node:stream';
import type { ServerReadableStream } from '@grpc/grpc-js';
import { invalidArgument, isSwitchyardError, SwitchyardError, systemTime, type Timers } from '@switchyard/core';
import { decoded } from './decoding.js';
import { endWasCancelled } from './end-of-stream.js';

/** The shape shared by UploadAssetRequest and ReplaceAssetRequest (which has no trailing label). */
export interface UploadMessage<M> {
  metadata?: M | undefined;
  chunk?: Buffer | undefined;
  trailingLabel?: string | undefined;
  trailingVisibility?: string | undefined;
}

/** Attributes a stream may send after its bytes, and the message field of each. */
const TRAILERS = [
  ['label', 'trailingLabel', 'trailing_label'],
  ['visibility', 'trailingVisibility', 'trailing_visibility'],
] as const;
export type Trailer = (typeof TRAILERS)[number][0];

export interface UploadStream<M> {
  readonly metadata: M;
  /** The file's bytes, pulled from the call one message at a time. */
  readonly body: Readable;
  /** The `trailing_label` or `trailing_visibility` that ended the stream, if one did; known once the body has ended. */
  trailing(name: Trailer): string | undefined;
  /**
   * The error the body failed with, if it did (client cancel, a malformed
   * stream): it explains a failed upload better than whatever the consumer of
   * the body reports.
   */
  bodyFailure(): unknown;
}

export interface UploadStreamRules<M> {
  /** Whether the metadata already carries the attribute, which a trailer may not repeat. */
  readonly inMetadata?: (metadata: M, name: Trailer) => boolean;
  /**
   * How long to wait for the client's next message (UPLOAD_IDLE_TIMEOUT_MS);
   * 0 waits forever. Only time spent waiting on the client counts: while the
   * consumer is busy (a slow blob store), no message is asked for.
   */
  readonly idleTimeoutMs?: number;
  /** Where the idle timeout (and end-of-stream.ts's fallback grace) is scheduled; the system's timers by default. */
  readonly timers?: Timers | undefined;
}

/**
 * Splits a client-streamed upload into its first message (the metadata), a
 * byte stream of the chunks that follow, and optional trailers (label, visibility). The
 * body pulls the next message only when its consumer wants more bytes, and
 * grpc-js pauses the HTTP/2 stream while no read is pending, so a slow blob
 * store slows the client instead of filling memory. A client cancel destroys
 * the body with `canceled`, also when it arrives right behind the end of the
 * stream (see end-of-stream.ts). A malformed stream fails the body with
 * `invalid_argument` before its end, so nothing is committed.
 */
export async function readUploadStream<M>(
  call: ServerReadableStream<UploadMessage<M>, unknown>,
  rules: UploadStreamRules<M> = {},
): Promise<UploadStream<M>> {
  const messages = call[Symbol.asyncIterator]() as AsyncIterator<UploadMessage<M>>;
  const idleMs = rules.idleTimeoutMs ?? 0;
  const timers = rules.timers ?? systemTime;
  const first = await nextWithin(messages, idleMs, timers).catch((error: unknown) => {
    throw canceledOr(call, error);
  });
  if (first.done) throw invalidArgument('metadata', 'the stream ended before its first message, the metadata');
  const head = decoded(first.value).metadata;
  if (head === undefined) throw invalidArgument('metadata', 'the first message must carry the metadata');
  const metadata: M = head;

  let failure: unknown;
  /** True while the generator waits at its yield, where only the body's consumer can throw in. */
  let atYield = false;
  const trailers = new Map<Trailer, string>();
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const next = await nextWithin(messages, idleMs, timers);
        if (next.done) {
          if (await endWasCancelled(call, timers)) throw canceledError();
          return;
        }
        const message = decoded(next.value);
        if (message.metadata !== undefined) throw invalidArgument('metadata', 'only the first message may carry metadata');
        const trailer = TRAILERS.find(([, key]) => message[key] !== undefined);
        if (trailer !== undefined) {
          const [name, key, field] = trailer;
          if (trailers.has(name)) throw invalidArgument(field, 'sent twice');
          if (rules.inMetadata?.(metadata, name)) throw invalidArgument(field, `metadata.${name} is set already; send the ${name} once`);
          trailers.set(name, message[key]!);
          continue;
        }
        if (trailers.size > 0)
          throw invalidArgument(
            TRAILERS.find(([name]) => trailers.has(name))![2],
            'must come after the last chunk, but a chunk followed it',
          );
        if (message.chunk !== undefined && message.chunk.length > 0) {
          atYield = true;
          yield message.chunk;
          atYield = false;
        }
      }
    } catch (error) {
      // Thrown in at the yield: the body's consumer destroyed it (a size or type limit, a store that
      // failed) and has its own reason. Recording that teardown error (an AbortError) as the body's
      // failure would hide the real answer behind an `internal` one (issue 28).
      if (atYield) throw error;
      failure ??= canceledOr(call, error);
      throw failure;
    } finally {
      // Consumer gave up early (e.g. too large) or the client stalled: stop reading the call.
      // Not awaited when a read is still pending (a stalled client): it settles when the call is torn down.
      const stopped = messages.return?.();
      if (!isStall(failure)) await stopped;
      else void stopped?.catch(() => undefined);
    }
  }

  const body = Readable.from(chunks(), { objectMode: false });
  // A cancel may destroy the body before anyone reads it; its error is reported through bodyFailure().
  body.on('error', () => undefined);
  const onCancel = (): void => {
    failure ??= canceledError();
    body.destroy(failure as Error);
  };
  call.once('cancelled', onCancel);
  body.once('close', () => call.off('cancelled', onCancel));
  return { metadata, body, trailing: (name) => trailers.get(name), bodyFailure: () => failure };
}

/**
 * The iterator's next message, or a `deadline_exceeded` failure once the
 * client has sent nothing for `idleMs`: a client that stops sending mid-upload
 * must not hold a stream, a temp file and a blob store upload open forever.
 */
function nextWithin<T>(messages: AsyncIterator<T>, idleMs: number, timers: Timers): Promise<IteratorResult<T>> {
  const next = messages.next();
  if (idleMs <= 0) return next;
  return new Promise((resolve, reject) => {
    const timer = timers.setTimeout(() => reject(stalledError(idleMs)), idleMs);
    next.then(resolve, reject).finally(() => timers.clearTimeout(timer));
  });
}

function stalledError(idleMs: number): SwitchyardError {
  return new SwitchyardError(
    'deadline_exceeded',
    `the client sent nothing for ${idleMs} ms; the upload was abandoned and nothing was stored`,
    [{ reason: `an upload must send its next message within ${idleMs} ms (UPLOAD_IDLE_TIMEOUT_MS)` }],
  );
}

/** In this module, only a stall fails with `deadline_exceeded`. */
function isStall(error: unknown): boolean {
  return isSwitchyardError(error) && error.code === 'deadline_exceeded';
}

function canceledError(cause?: unknown): SwitchyardError {
  return new SwitchyardError('canceled', 'the client canceled the upload; nothing was stored', [], { cause });
}

function canceledOr(call: { cancelled: boolean }, error: unknown): unknown {
  return call.cancelled ? canceledError(error) : error;
}
