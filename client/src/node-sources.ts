import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { rereadableSource, streamSource, webResumableSource, type ResumableSource } from './resumable-source.js';
import { webBytesOf, webNameOf, type WebByteSource } from './web-sources.js';

/** What the Node entry can upload: a file path, a Node stream, or anything the browser entry takes. */
export type ByteSource = string | Readable | WebByteSource;

/** Node streams yield Buffers (Uint8Arrays); a string is a path to read, never the content. */
export function nodeBytesOf(source: ByteSource): AsyncIterable<Uint8Array> {
  if (typeof source === 'string') return createReadStream(source);
  if (source instanceof Readable) return source;
  return webBytesOf(source);
}

/** The file name of a path (or a `File`'s name): the asset's name when none is given. */
export function nodeNameOf(source: ByteSource): string | undefined {
  if (typeof source === 'string') return basename(source);
  return source instanceof Readable ? undefined : webNameOf(source);
}

/** A path is read again from any offset (its size taken when the upload starts); a Node stream once. */
export async function nodeResumableSource(source: ByteSource): Promise<ResumableSource> {
  if (typeof source === 'string') {
    const file = await stat(source);
    if (!file.isFile()) throw new TypeError(`${source} is not a file`);
    return rereadableSource(file.size, (start, end) => createReadStream(source, { start, end: end - 1 }));
  }
  if (source instanceof Readable) return streamSource(source, () => source.destroy());
  return webResumableSource(source);
}
