import { createHash, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import { invalidArgument, SwitchyardError, toSwitchyardError } from '../errors.js';
import { bodyFailure } from '../assets/byte-meter.js';
import { forget } from '../assets/ingest.js';
import type { RunningHash } from '../assets/off-thread-hash.js';
import type { ByteSource } from '../assets/types.js';
import type { BlobStore } from '../ports/blob-store.js';
import { partLost } from './finish-upload.js';
import type { UploadChecksum } from './types.js';

/** Detail field of a checksum mismatch: transports with a status for it (tus: 460) recognise it by this. */
export const CHECKSUM_MISMATCH_FIELD = 'checksum';

export interface StoredPart {
  readonly size: number;
  /**
   * Why the body ended before the sender finished it (a dropped connection,
   * a stalled client). The bytes that did arrive are stored all the same.
   */
  readonly cut: SwitchyardError | undefined;
}

/** Where a run of bytes goes. */
export interface PartTarget {
  readonly key: string;
  /**
   * Absent: a blob of its own, written with `put`. Set: the blob is written
   * with `writeAt` from this byte on, after the upload's bytes it already holds.
   */
  readonly at?: number | undefined;
}

/** Whether the target's blob held none of the upload's bytes before: it is then the run's alone, to delete if the run is not kept. */
export function ownsBlob({ at }: PartTarget): boolean {
  return at === undefined || at === 0;
}

interface PartLimit {
  readonly maxBytes: number;
  /** Says what was passed, for the refusal. */
  readonly tooLarge: (maxBytes: number) => SwitchyardError;
}

/**
 * Stores one run of an upload's bytes at `target`. Unlike a plain upload, a
 * body cut short keeps what arrived: that is the point of resuming. With a
 * checksum it is all or nothing instead (the digest covers the whole run).
 * Any other failure, or a mismatch, stores nothing: the bytes written are
 * removed again (a `writeAt` blob is cut back to `at`).
 */
export async function storePart(
  blobStore: BlobStore,
  target: PartTarget,
  source: ByteSource,
  limit: PartLimit,
  checksum: UploadChecksum | undefined,
  /** Takes the run's bytes too (the upload's running sha256, hashed off the event loop), whatever becomes of them. */
  digest?: RunningHash,
): Promise<StoredPart> {
  // Inline: an Upload-Checksum covers one PATCH, and is rare (tus-js-client sends none).
  const checked = checksum ? createHash(checksum.algorithm) : undefined;
  const state: { size: number; cut: SwitchyardError | undefined; failure: SwitchyardError | undefined } = {
    size: 0,
    cut: undefined,
    failure: undefined,
  };
  const body = Readable.from(untilCut(source, state, limit, checked, digest), { objectMode: false });
  const { key, at } = target;
  try {
    await (at === undefined ? blobStore.put(key, body) : blobStore.writeAt!(key, at, body));
  } catch (error) {
    body.destroy();
    await unwrite(blobStore, target);
    const failure = state.failure ?? toSwitchyardError(error);
    // The blob lost the bytes it held of the upload (a crash, an operator): nothing can be appended to them.
    throw failure.code === 'out_of_range' && at !== undefined
      ? partLost(`a stored part of the upload is missing or short (${key})`)
      : failure;
  }
  if (checksum && (state.cut || !timingSafeEqualBytes(checked!.digest(), checksum.digest))) {
    await unwrite(blobStore, target);
    if (state.cut) throw state.cut;
    throw new SwitchyardError(
      'invalid_argument',
      `the ${checksum.algorithm} of the ${state.size} bytes received does not match Upload-Checksum; they were not kept`,
      [{ field: CHECKSUM_MISMATCH_FIELD, reason: 'checksum mismatch' }],
    );
  }
  return { size: state.size, cut: state.cut };
}

/** Removes what a run that is not kept wrote: its own blob, or its bytes past `at` in a shared one (best effort: they are past the committed offset either way). */
async function unwrite(blobStore: BlobStore, target: PartTarget): Promise<void> {
  if (ownsBlob(target)) return forget(blobStore, target.key);
  await blobStore.writeAt!(target.key, target.at!, Readable.from([], { objectMode: false })).catch(() => undefined);
}

async function* untilCut(
  source: ByteSource,
  state: { size: number; cut: SwitchyardError | undefined; failure: SwitchyardError | undefined },
  limit: PartLimit,
  checked: ReturnType<typeof createHash> | undefined,
  digest: RunningHash | undefined,
): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of source as AsyncIterable<unknown>) {
      if (!(chunk instanceof Uint8Array)) throw invalidArgument('body', 'the body must yield bytes (Uint8Array chunks)');
      if (chunk.length === 0) continue;
      if (state.size + chunk.length > limit.maxBytes) throw limit.tooLarge(limit.maxBytes);
      state.size += chunk.length;
      checked?.update(chunk);
      // A promise when the hashing worker is behind: the body is read no faster than it is hashed.
      const hashing = digest?.update(chunk);
      if (hashing) await hashing;
      yield chunk;
    }
  } catch (error) {
    const failure = bodyFailure(error);
    // The sender went away or stalled: end the part here, with what arrived.
    if (failure.code === 'canceled' || failure.code === 'deadline_exceeded') {
      state.cut = failure;
      return;
    }
    state.failure = failure;
    throw failure;
  }
}

function timingSafeEqualBytes(actual: Buffer, expected: Uint8Array): boolean {
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
