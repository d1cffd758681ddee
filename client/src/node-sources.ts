import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { webBytesOf, type WebByteSource } from './web-sources.js';

/** What the Node entry can upload: a file path, a Node stream, or anything the browser entry takes. */
export type ByteSource = string | Readable | WebByteSource;

/** Node streams yield Buffers (Uint8Arrays); a string is a path to read, never the content. */
export function nodeBytesOf(source: ByteSource): AsyncIterable<Uint8Array> {
  if (typeof source === 'string') return createReadStream(source);
  if (source instanceof Readable) return source;
  return webBytesOf(source);
}
