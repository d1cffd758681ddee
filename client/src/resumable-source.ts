// The file of a resumable upload, read a stretch at a time from the offset the
// service has committed. No Node built-ins: node-sources.ts adds paths and
// Node streams.
import { webBytesOf, type WebByteSource } from './web-sources.js';

/** `size` bytes of the file from the offset asked for; `total` is the file's size once it is known. */
export interface Stretch {
  readonly bytes: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  readonly size: number;
  readonly total: number | undefined;
}

export interface ResumableSource {
  /** The file's size, when it is known before reading (a path, a Blob, bytes). */
  readonly size: number | undefined;
  /**
   * Up to `maxBytes` from `offset` on. Offsets only move forward, except that
   * a failed append's stretch may be asked for again from where it starts.
   */
  read(offset: number, maxBytes: number): Promise<Stretch>;
  /** Lets go of what the source holds open (a stream is ended, as a pipeline would). */
  close(): Promise<void>;
}

/** A source that can be read from any offset again: its size is known and nothing is kept in memory. */
export function rereadableSource(
  size: number,
  slice: (start: number, end: number) => AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): ResumableSource {
  return {
    size,
    read: async (offset, maxBytes) => {
      if (offset > size) throw new RangeError(`the upload is at byte ${offset}, past the end of the ${size}-byte source`);
      const end = Math.min(size, offset + maxBytes);
      return { bytes: end > offset ? slice(offset, end) : [], size: end - offset, total: size };
    },
    close: async () => {},
  };
}

export function bytesSource(bytes: Uint8Array): ResumableSource {
  return rereadableSource(bytes.byteLength, (start, end) => [bytes.subarray(start, end)]);
}

export function blobSource(blob: Blob): ResumableSource {
  return rereadableSource(blob.size, (start, end) => webBytesOf(blob.slice(start, end)));
}

/**
 * A stream read once. It holds the stretch being appended in memory (up to
 * `maxBytes`, plus one chunk of the stream) until the service has committed
 * it, so a failed append is sent again from there; bytes before the committed
 * offset are dropped. It reads one chunk past `maxBytes` before each append,
 * so the append that reaches the end knows it and can declare the length.
 * Given an upload already under way, it skips the bytes the upload holds.
 * `abandon` ends a stream left unfinished (an iterator not yet started has
 * nothing to end it with).
 */
export function streamSource(stream: AsyncIterable<Uint8Array>, abandon?: () => void): ResumableSource {
  const iterator = stream[Symbol.asyncIterator]();
  const kept: Uint8Array[] = [];
  let start = 0; // the offset of kept[0]
  let keptBytes = 0;
  let ended = false;

  async function pull(): Promise<void> {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      return;
    }
    if (!(next.value instanceof Uint8Array)) throw new TypeError('an upload stream must yield bytes (Uint8Array or Buffer chunks)');
    kept.push(next.value);
    keptBytes += next.value.byteLength;
  }

  return {
    size: undefined,
    read: async (offset, maxBytes) => {
      if (offset < start)
        throw new RangeError(`a stream cannot go back to byte ${offset}: the bytes before ${start} were let go once committed`);
      while (start < offset) {
        if (kept.length === 0) {
          if (ended) throw new RangeError(`the upload is at byte ${offset}, past the end of the ${start}-byte stream`);
          await pull();
          continue;
        }
        const first = kept[0]!;
        const dropped = Math.min(first.byteLength, offset - start);
        if (dropped === first.byteLength) kept.shift();
        else kept[0] = first.subarray(dropped);
        start += dropped;
        keptBytes -= dropped;
      }
      while (!ended && keptBytes <= maxBytes) await pull();
      const size = Math.min(keptBytes, maxBytes);
      return { bytes: leading(kept, size), size, total: ended ? start + keptBytes : undefined };
    },
    close: async () => {
      kept.length = 0;
      if (ended) return;
      if (abandon) abandon();
      else await iterator.return?.();
    },
  };
}

/** The first `size` bytes of `chunks`, without copying. */
function leading(chunks: readonly Uint8Array[], size: number): Uint8Array[] {
  const taken: Uint8Array[] = [];
  let left = size;
  for (const chunk of chunks) {
    if (left === 0) break;
    taken.push(chunk.byteLength <= left ? chunk : chunk.subarray(0, left));
    left -= Math.min(chunk.byteLength, left);
  }
  return taken;
}

/** Bytes, an ArrayBuffer and a Blob are read again from any offset; a web stream or an async iterable once. */
export function webResumableSource(source: WebByteSource): ResumableSource {
  if (source instanceof Uint8Array) return bytesSource(source);
  if (source instanceof ArrayBuffer) return bytesSource(new Uint8Array(source));
  if (typeof Blob !== 'undefined' && source instanceof Blob) return blobSource(source);
  return streamSource(webBytesOf(source));
}
