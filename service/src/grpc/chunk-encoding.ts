// A hand-written encoder for ReadFileResponse's chunk messages, the bytes of
// every file read. The generated one (ts-proto on @bufbuild/protobuf's
// BinaryWriter) grows a zeroed buffer by doubling, slices it, and grpc-js's
// serializer then copies that into a Buffer: three copies and their garbage
// per 64 KiB chunk. This one writes the tag, the length and the bytes into
// one Buffer of the exact size.
// Justified by file-serve-4mib (bench/hand-written-parts.md#chunk-encoding).
// Every other message, and a chunk with info, still goes through the
// generated encoder; `chunk-encoding.test.ts` holds the two byte-equal.
import type { ServiceDefinition } from '@grpc/grpc-js';
import { ReadFileResponse } from '../gen/switchyard/v1/files.js';

/** Field 2 (`chunk`), wire type 2 (length-delimited). */
const CHUNK_TAG = (2 << 3) | 2;

/** The wire bytes of `response`, in one allocation when it carries only a chunk. */
export function serializeReadFileResponse(response: ReadFileResponse): Buffer {
  const chunk = response.chunk;
  if (chunk === undefined || response.info !== undefined) return Buffer.from(ReadFileResponse.encode(response).finish());
  const length = chunk.length;
  const header = 1 + varintSize(length);
  const out = Buffer.allocUnsafe(header + length);
  out[0] = CHUNK_TAG;
  let at = 1;
  let rest = length;
  while (rest > 0x7f) {
    out[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  out[at] = rest;
  out.set(chunk, header);
  return out;
}

function varintSize(value: number): number {
  let size = 1;
  while (value > 0x7f) {
    value >>>= 7;
    size++;
  }
  return size;
}

/** The FileService definition with ReadFile's responses encoded as above. */
export function withFastChunks<D extends ServiceDefinition>(definition: D): D {
  const method = definition['readFile'];
  if (method === undefined) throw new Error('withFastChunks: not the FileService definition');
  return { ...definition, readFile: { ...method, responseSerialize: serializeReadFileResponse } };
}
