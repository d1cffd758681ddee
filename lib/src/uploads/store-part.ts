import { createHash, timingSafeEqual, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { invalidArgument, SwitchyardError, toSwitchyardError } from '../errors.js';
import { bodyFailure } from '../assets/byte-meter.js';
import { forget } from '../assets/ingest.js';
import type { ByteSource } from '../assets/types.js';
import type { BlobStore } from '../ports/blob-store.js';
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

interface PartLimit {
  readonly maxBytes: number;
  /** Says what was passed, for the refusal. */
  readonly tooLarge: (maxBytes: number) => SwitchyardError;
}

/**
 * Stores one run of an upload's bytes under `key`. Unlike a plain upload, a
 * body cut short keeps what arrived: that is the point of resuming. With a
 * checksum it is all or nothing instead (the digest covers the whole run).
 * Any other failure, or a mismatch, stores nothing.
 */
export async function storePart(blobStore: BlobStore, key: string, source: ByteSource, limit: PartLimit, checksum: UploadChecksum | undefined): Promise<StoredPart> {
  const hash = checksum ? createHash(checksum.algorithm) : undefined;
  const state: { size: number; cut: SwitchyardError | undefined; failure: SwitchyardError | undefined } = { size: 0, cut: undefined, failure: undefined };
  const body = Readable.from(untilCut(source, state, limit, hash), { objectMode: false });
  try {
    await blobStore.put(key, body);
  } catch (error) {
    body.destroy();
    await forget(blobStore, key);
    throw state.failure ?? toSwitchyardError(error);
  }
  if (checksum && (state.cut || !timingSafeEqualBytes(hash!.digest(), checksum.digest))) {
    await forget(blobStore, key);
    if (state.cut) throw state.cut;
    throw new SwitchyardError('invalid_argument', `the ${checksum.algorithm} of the ${state.size} bytes received does not match Upload-Checksum; they were not kept`, [
      { field: CHECKSUM_MISMATCH_FIELD, reason: 'checksum mismatch' },
    ]);
  }
  return { size: state.size, cut: state.cut };
}

async function* untilCut(
  source: ByteSource,
  state: { size: number; cut: SwitchyardError | undefined; failure: SwitchyardError | undefined },
  limit: PartLimit,
  hash: Hash | undefined,
): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of source as AsyncIterable<unknown>) {
      if (!(chunk instanceof Uint8Array)) throw invalidArgument('body', 'the body must yield bytes (Uint8Array chunks)');
      if (chunk.length === 0) continue;
      if (state.size + chunk.length > limit.maxBytes) throw limit.tooLarge(limit.maxBytes);
      state.size += chunk.length;
      hash?.update(chunk);
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
