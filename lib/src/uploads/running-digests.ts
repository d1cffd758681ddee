import { offThreadSha256, type RunningHash } from '../assets/off-thread-hash.js';

/** Uploads whose running digest is kept at most; past it the one touched longest ago goes (its finish reads its bytes instead). */
const MAX_UPLOADS = 1000;

interface Running {
  /** The blob the upload's bytes are appended to, and how many of its first bytes `hash` has taken. */
  readonly key: string;
  readonly size: number;
  readonly hash: RunningHash;
}

/**
 * The sha256 of the bytes appended to each upload's blob, kept in this
 * process as they pass, so the finish of an upload whose appends all came
 * here need not read its bytes again to hash them. An entry speaks only for
 * exactly the first `size` bytes of its blob: committed bytes never change,
 * so it holds for as long as the upload is at that point; an append made
 * elsewhere moves the upload past it, and it is no longer asked for.
 */
export class RunningDigests {
  readonly #uploads = new Map<string, Running>();

  /** A hash to go on with from byte `at` of blob `key`: a fresh one at 0, else a copy of the one kept there, if any. */
  resume(uploadId: string, key: string, at: number): RunningHash | undefined {
    if (at === 0) return offThreadSha256();
    const running = this.#uploads.get(uploadId);
    return running?.key === key && running.size === at ? running.hash.copy() : undefined;
  }

  /** Keeps `hash` as that of the first `size` bytes of blob `key`, once they are committed. */
  keep(uploadId: string, key: string, size: number, hash: RunningHash): void {
    this.forget(uploadId);
    this.#uploads.set(uploadId, { key, size, hash });
    if (this.#uploads.size > MAX_UPLOADS) this.forget(this.#uploads.keys().next().value!);
  }

  /** The lower-case hex sha256 of the first `size` bytes of blob `key`, when kept (awaited from the hashing worker). */
  async sha256(uploadId: string, key: string, size: number): Promise<string | undefined> {
    const running = this.#uploads.get(uploadId);
    if (running?.key !== key || running.size !== size) return undefined;
    return (await running.hash.copy().digest()).toString('hex');
  }

  forget(uploadId: string): void {
    this.#uploads.get(uploadId)?.hash.dispose();
    this.#uploads.delete(uploadId);
  }
}
