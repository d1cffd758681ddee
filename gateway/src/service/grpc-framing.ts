import type { OutgoingHttpHeaders } from 'node:http2';
import { create, isMessage, ScalarType, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';

/** Request headers of a gRPC call: the caller's, then the protocol's (which callers cannot override). */
export function requestHeaders(header: HeadersInit | undefined, timeoutMs: number | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  if (header) {
    const entries = header instanceof Headers || Array.isArray(header) ? header : Object.entries(header);
    for (const [key, value] of entries) {
      const name = key.toLowerCase();
      const previous = headers[name];
      headers[name] = previous === undefined ? value : `${String(previous)}, ${value}`;
    }
  }
  headers['content-type'] = 'application/grpc+proto';
  headers['te'] = 'trailers';
  if (timeoutMs !== undefined && timeoutMs > 0) headers['grpc-timeout'] = grpcTimeout(timeoutMs);
  return headers;
}

/** At most 8 digits (gRPC's rule): milliseconds, rounded up, or whole seconds past that. */
export function grpcTimeout(timeoutMs: number): string {
  const ms = Math.ceil(timeoutMs);
  return ms <= 99_999_999 ? `${ms}m` : `${Math.min(Math.ceil(ms / 1000), 99_999_999)}S`;
}

/** A message behind gRPC's 5-byte prefix (uncompressed, big-endian length). */
export function envelope(payload: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(5 + payload.byteLength);
  framed[0] = 0;
  framed.writeUInt32BE(payload.byteLength, 1);
  framed.set(payload, 5);
  return framed;
}

/** `toBinary`, failing as Connect's serializer does. */
export function serialize<I extends DescMessage>(schema: I, message: MessageInitShape<I>): Uint8Array {
  try {
    return toBinary(schema, isMessage(message, schema) ? message : create(schema, message));
  } catch (error) {
    throw new ConnectError(`serialize binary: ${error instanceof Error ? error.message : String(error)}`, Code.Internal);
  }
}

/**
 * How a request message goes on the wire. A message that is nothing but a
 * oneof of which the `chunk` bytes field is set (an upload's file bytes) is
 * framed by hand: a few header bytes, then the chunk itself, uncopied. That is
 * byte for byte what `toBinary` writes for it (a test holds the two equal);
 * every other message goes through `toBinary`.
 */
export function framer<I extends DescMessage>(schema: I): (message: MessageInitShape<I>) => Uint8Array[] {
  const chunkField = schema.fields.find(
    (field) =>
      field.localName === 'chunk' && field.fieldKind === 'scalar' && field.scalar === ScalarType.BYTES && field.oneof !== undefined,
  );
  const oneof = chunkField?.oneof;
  const onlyTheOneof = oneof !== undefined && schema.fields.every((field) => field.oneof === oneof);
  return (message) => {
    if (onlyTheOneof && !isMessage(message)) {
      const selected = (message as Record<string, { case?: string; value?: unknown } | undefined>)[oneof.localName];
      if (selected?.case === 'chunk' && selected.value instanceof Uint8Array) return chunkFrames(chunkField!.number, selected.value);
    }
    return [envelope(serialize(schema, message))];
  };
}

/** The gRPC prefix, the field's key and length, then the bytes. */
function chunkFrames(fieldNumber: number, bytes: Uint8Array): Uint8Array[] {
  const key = varint(fieldNumber * 8 + 2);
  const length = varint(bytes.byteLength);
  const head = Buffer.allocUnsafe(5 + key.length + length.length);
  head[0] = 0;
  head.writeUInt32BE(key.length + length.length + bytes.byteLength, 1);
  head.set(key, 5);
  head.set(length, 5 + key.length);
  return [head, bytes];
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  bytes.push(value);
  return bytes;
}
