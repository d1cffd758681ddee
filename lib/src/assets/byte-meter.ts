import { invalidArgument, SwitchyardError } from '../errors.js';
import type { RunningHash } from './off-thread-hash.js';
import type { ByteSource } from './types.js';

/** Node codes and names that mean the sender went away mid-stream. */
const ABORT_CODES = new Set(['ABORT_ERR', 'ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED']);

/**
 * Judges a file by its first bytes before any of them is passed on: `head` is
 * all of the file when `totalSize` is known, else its first `headBytes`.
 * Throwing refuses the file.
 */
export type AdmitHead = (head: Uint8Array, totalSize: number | undefined) => Promise<void>;

/**
 * Passes a body's chunks through while counting them against a limit,
 * hashing them and keeping a copy of the first bytes. With `admit`, the first
 * bytes are held back until it has judged them, so a refused file never
 * reaches the store. Remembers why the body failed, so the caller reports
 * that rather than the store's view of it.
 */
export class ByteMeter {
  readonly #maxBytes: number;
  readonly #headBytes: number;
  readonly #hash: RunningHash;
  readonly #head: Buffer[] = [];
  #headLength = 0;
  #size = 0;
  #finished = false;
  #failure: SwitchyardError | undefined;

  readonly #admit: AdmitHead | undefined;

  constructor(maxBytes: number, headBytes: number, hash: RunningHash, admit?: AdmitHead) {
    this.#maxBytes = maxBytes;
    this.#headBytes = headBytes;
    this.#hash = hash;
    this.#admit = admit;
  }

  /** True once the source ended normally and every chunk was passed on. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Why the body failed, when it did. */
  get failure(): SwitchyardError | undefined {
    return this.#failure;
  }

  async *pass(source: ByteSource): AsyncGenerator<Uint8Array> {
    // Chunks held back until `admit` has judged the head (at most the head and one chunk).
    let held: Uint8Array[] | undefined = this.#admit ? [] : undefined;
    // True while waiting at a yield, where only the consumer can throw in: its own failure (a store that failed,
    // a stream it destroyed) is its to report, not the body's (issue 28: a full disk was answered as a bad body).
    let atYield = false;
    try {
      for await (const chunk of source as AsyncIterable<unknown>) {
        const bytes = asBytes(chunk);
        if (bytes.length === 0) continue;
        this.#size += bytes.length;
        // Checked before the chunk goes on: the store never sees a byte past the limit.
        if (this.#size > this.#maxBytes) throw tooLarge(this.#maxBytes);
        // A promise when the hashing worker is behind: the body is read no faster than it is hashed.
        const hashing = this.#hash.update(bytes);
        if (hashing) await hashing;
        this.#keepHead(bytes);
        if (held === undefined) {
          atYield = true;
          yield bytes;
          atYield = false;
          continue;
        }
        held.push(bytes);
        // Judged once a byte past the head arrived, so the head seen is the same as at the end.
        if (this.#size > this.#headBytes) {
          await this.#admit!(this.#headCopy(), undefined);
          atYield = true;
          for (const piece of held) yield piece;
          atYield = false;
          held = undefined;
        }
      }
      if (held !== undefined) {
        await this.#admit!(this.#headCopy(), this.#size);
        atYield = true;
        for (const piece of held) yield piece;
        atYield = false;
      }
      this.#finished = true;
    } catch (error) {
      if (atYield) throw error;
      this.#failure = bodyFailure(error);
      throw this.#failure;
    }
  }

  /** Once the body passed: its size, head and sha256 (awaited from the hashing worker). */
  async result(): Promise<{ size: number; sha256: string; head: Uint8Array }> {
    return { size: this.#size, sha256: (await this.#hash.digest()).toString('hex'), head: this.#headCopy() };
  }

  /** Gives up the hash of a body that is not kept. */
  dispose(): void {
    this.#hash.dispose();
  }

  #headCopy(): Uint8Array {
    return Buffer.concat(this.#head, this.#headLength);
  }

  #keepHead(bytes: Uint8Array): void {
    if (this.#headLength >= this.#headBytes) return;
    // A copy: the source may reuse its buffers once the chunk has been consumed.
    const part = Buffer.from(bytes.subarray(0, this.#headBytes - this.#headLength));
    this.#head.push(part);
    this.#headLength += part.length;
  }
}

function asBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  throw invalidArgument('file', 'the body must yield bytes (Uint8Array chunks), not strings or objects');
}

/**
 * The refusal of a file over the limit in force: the workspace policy's
 * `maxUploadBytes`, which is the server's MAX_UPLOAD_BYTES where the workspace
 * set none (so the workspace's limit is always the one to name).
 */
export function tooLarge(maxBytes: number, field = 'file'): SwitchyardError {
  return new SwitchyardError(
    'resource_exhausted',
    `the file is larger than this workspace's upload limit of ${maxBytes} bytes (${readableSize(maxBytes)}); nothing was stored`,
    [{ field, reason: `larger than ${maxBytes} bytes` }],
  );
}

/** 1048576 -> "1 MiB", 1500 -> "1.5 KiB": for messages people read. */
export function readableSize(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : Number(value.toFixed(1))} ${units[unit]}`;
}

/** Our own errors keep their code; a sender that went away is `canceled`; any other broken body is the caller's input. */
export function bodyFailure(error: unknown): SwitchyardError {
  if (error instanceof SwitchyardError) return error;
  if (isAbort(error))
    return new SwitchyardError('canceled', 'the upload was canceled before its end; nothing was stored', [], { cause: error });
  return new SwitchyardError(
    'invalid_argument',
    'the upload body failed before its end; nothing was stored',
    [{ field: 'file', reason: 'the byte stream failed' }],
    {
      cause: error,
    },
  );
}

function isAbort(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return error.name === 'AbortError' || (typeof code === 'string' && ABORT_CODES.has(code)) || error.message === 'aborted';
}
