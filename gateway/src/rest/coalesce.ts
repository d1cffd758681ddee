/**
 * Joins small pieces into chunks of about `targetBytes`. Multipart parsing
 * yields pieces of a few KiB to 64 KiB; sending each as its own gRPC message
 * costs more in framing and per-message work than the copy does here.
 */
export async function* coalesce(pieces: AsyncIterable<Uint8Array>, targetBytes: number): AsyncGenerator<Uint8Array> {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  for await (const piece of pieces) {
    if (piece.byteLength === 0) continue;
    held.push(piece);
    heldBytes += piece.byteLength;
    if (heldBytes >= targetBytes) {
      yield held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
      held = [];
      heldBytes = 0;
    }
  }
  if (heldBytes > 0) yield held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
}
