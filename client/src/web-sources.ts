/** What the browser entry can upload: bytes, a `Blob` (or `File`), a web stream or any async iterable of bytes. */
export type WebByteSource = Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

async function* fromReader(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** A `File`'s own name, the asset's name when none is given; other sources name no file. */
export function webNameOf(source: WebByteSource): string | undefined {
  return typeof File !== 'undefined' && source instanceof File && source.name !== '' ? source.name : undefined;
}

export function webBytesOf(source: WebByteSource): AsyncIterable<Uint8Array> {
  if (source instanceof Uint8Array) return once(source);
  if (source instanceof ArrayBuffer) return once(new Uint8Array(source));
  if (typeof Blob !== 'undefined' && source instanceof Blob) return fromReader(source.stream());
  if (typeof ReadableStream !== 'undefined' && source instanceof ReadableStream) return fromReader(source);
  if (Symbol.asyncIterator in source) return source;
  throw new TypeError('upload source must be bytes, a Blob, a ReadableStream or an async iterable of bytes');
}
