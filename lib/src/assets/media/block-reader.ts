/** Bytes of a stored file at a position, fetched from the server (probe-pool.ts counts them against the file's byte bound). */
export type FetchRange = (start: number, length: number) => Promise<Uint8Array>;

/** Reads are rounded out to blocks this large: parsers ask for a few bytes at a time (box and element headers). */
const BLOCK_BYTES = 64 * 1024;
/** Blocks kept: enough for a parser going back and forth inside an index. */
const KEPT_BLOCKS = 16;

/**
 * A stored file as the parsers read it: its head (kept while it streamed in)
 * costs nothing; anything past it is fetched a block at a time, and the last
 * blocks are kept.
 */
export class BlockReader {
  readonly size: number;
  readonly #head: Uint8Array;
  readonly #fetch: FetchRange;
  readonly #blocks = new Map<number, Uint8Array>();

  constructor(head: Uint8Array, size: number, fetch: FetchRange) {
    this.#head = head;
    this.size = size;
    this.#fetch = fetch;
  }

  /** Up to `length` bytes from `start` (fewer at the end of the file). */
  async read(start: number, length: number): Promise<Uint8Array> {
    const end = Math.min(this.size, start + Math.max(0, length));
    if (start >= end) return new Uint8Array(0);
    if (end <= this.#head.length) return this.#head.subarray(start, end);
    const out = new Uint8Array(end - start);
    for (let at = start; at < end; ) {
      const block = Math.floor(at / BLOCK_BYTES);
      const bytes = await this.#block(block);
      const from = at - block * BLOCK_BYTES;
      const piece = bytes.subarray(from, Math.min(bytes.length, from + end - at));
      if (piece.length === 0) break;
      out.set(piece, at - start);
      at += piece.length;
    }
    return out;
  }

  async #block(index: number): Promise<Uint8Array> {
    let bytes = this.#blocks.get(index);
    if (bytes !== undefined) {
      // Most recently used last.
      this.#blocks.delete(index);
    } else {
      const start = index * BLOCK_BYTES;
      const end = Math.min(this.size, start + BLOCK_BYTES);
      bytes = end <= this.#head.length ? this.#head.subarray(start, end) : await this.#fetch(start, end - start);
      if (this.#blocks.size >= KEPT_BLOCKS) this.#blocks.delete(this.#blocks.keys().next().value!);
    }
    this.#blocks.set(index, bytes);
    return bytes;
  }
}
