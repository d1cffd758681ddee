// Bytes their writer gives up. Once written to a call, nothing in this
// process holds them for reuse or will change them: a fresh read from a file,
// a chunk freshly joined from smaller pieces; never bytes kept in a cache.
// Over gRPC this changes nothing (they are encoded onto the socket); the
// in-process channel, which otherwise copies every bytes field as the wire
// would, passes handed-over bytes on as they are.
// Justified by file-serve-4mib (bench/hand-written-parts.md#handed-over-bytes).

const handedOver = new WeakSet<object>();

/** Marks `bytes` as given up by their writer and returns them. */
export function handOver<T extends Uint8Array>(bytes: T): T {
  handedOver.add(bytes);
  return bytes;
}

/** Whether `bytes` were handed over by their writer. */
export function isHandedOver(bytes: Uint8Array): boolean {
  return handedOver.has(bytes);
}

/** Marks a stream whose every chunk is a fresh buffer that only its reader will hold, and returns it. */
export function withFreshChunks<T extends object>(stream: T): T {
  handedOver.add(stream);
  return stream;
}

/** Whether `stream` was marked by withFreshChunks: its chunks may be handed over. */
export function hasFreshChunks(stream: object): boolean {
  return handedOver.has(stream);
}
