// Stand-ins for grpc-js's server call objects, carrying exactly what our
// handlers and their wrappers (grpc/rpc.ts) use: the request or request
// stream, metadata in and out, `cancelled` and its event, and for server
// streams `write`/`end` with backpressure and status errors.
import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { Metadata, type StatusObject } from '@grpc/grpc-js';
import { encodeBinaryHeader } from '@connectrpc/connect';
import { IN_PROCESS_CALL } from '../grpc/end-of-stream.js';
import type { CallLife } from './call-life.js';

/** How a call ends badly, as grpc-js handlers report it. */
export type CallStatus = Partial<StatusObject>;

/** grpc-js metadata values as HTTP header values (binary ones base64, as on the wire). */
export function metadataToHeaders(metadata: Metadata, into: Headers = new Headers()): Headers {
  for (const [key, value] of Object.entries(metadata.getMap()))
    into.set(key, typeof value === 'string' ? value : encodeBinaryHeader(value));
  return into;
}

/**
 * The request headers a gRPC server would have read as metadata. A plain
 * record of lower-case names and string values (what the gateway passes) goes
 * straight in, values trimmed as Headers would; anything else goes through
 * Headers (which lower-cases names, joins repeated ones and refuses bad ones).
 */
export function headersToMetadata(header: HeadersInit | undefined): Metadata {
  const metadata = new Metadata();
  const add = (value: string, key: string): void => {
    if (key.endsWith('-bin')) metadata.add(key, Buffer.from(value, 'base64'));
    else metadata.add(key, value);
  };
  if (header === undefined) return metadata;
  if (!isPlainLowerCaseRecord(header)) {
    (header instanceof Headers ? header : new Headers(header)).forEach(add);
    return metadata;
  }
  for (const key of Object.keys(header)) add(withoutSurroundingWhitespace(header[key]!), key);
  return metadata;
}

/** A record whose names are already lower-case (so none repeats another but for case) and whose values are strings. */
function isPlainLowerCaseRecord(header: HeadersInit): header is Record<string, string> {
  const prototype = Object.getPrototypeOf(header) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const [key, value] of Object.entries(header)) if (typeof value !== 'string' || key !== key.toLowerCase()) return false;
  return true;
}

/** As Headers normalizes a value: HTTP whitespace (tab, LF, CR, space) off both ends. */
function withoutSurroundingWhitespace(value: string): string {
  const isSpace = (code: number): boolean => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
  return value.length > 0 && (isSpace(value.charCodeAt(0)) || isSpace(value.charCodeAt(value.length - 1)))
    ? value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '')
    : value;
}

/** Adds what every server call offers to `target`, and cancels it with `life`. */
function withBasics<T extends EventEmitter>(target: T, life: CallLife, onCancel: () => void = () => {}): T {
  const call = Object.assign(target, {
    metadata: life.metadata,
    cancelled: false,
    [IN_PROCESS_CALL]: true,
    getPeer: () => 'in-process',
    getDeadline: () => Infinity,
    sendMetadata: (metadata: Metadata) => life.sendHeader(metadata),
  });
  life.onCancel(() => {
    call.cancelled = true;
    call.emit('cancelled', 'cancelled');
    onCancel();
  });
  return call;
}

export function unaryCall(life: CallLife, request: unknown): EventEmitter {
  return Object.assign(withBasics(new EventEmitter(), life), { request });
}

/** A client-streaming call: a readable of the (already deserialized) requests, pulled one at a time. */
export function readableCall(life: CallLife, requests: AsyncIterable<unknown>): Readable {
  const readable = Readable.from(requests, { objectMode: true, highWaterMark: 1 });
  // A cancel must also wake a handler waiting for the next message: the stream ends early, and `cancelled` says why.
  return withBasics(readable, life, () => readable.destroy());
}

/**
 * A server-streaming call: `write` hands a message to `deliver`, whose promise
 * settles once the consumer took it; `write` returns false (and `drain` comes
 * later) while a few messages wait, as an HTTP/2 stream's window would.
 */
export function writableCall(
  life: CallLife,
  request: unknown,
  sink: { deliver(message: unknown): Promise<void>; end(): void; fail(status: CallStatus): void },
): Writable {
  const writable = new Writable({
    objectMode: true,
    highWaterMark: 4,
    write: (message: unknown, _encoding, done) => {
      life.headerGoesOut();
      void sink.deliver(message).then(() => done(), done);
    },
    final: (done) => {
      sink.end();
      done();
    },
  });
  // grpc-js handlers end a stream with a status by emitting it as 'error'.
  writable.on('error', (status: CallStatus | Error) =>
    sink.fail(status instanceof Error ? { code: 13, details: 'internal error' } : status),
  );
  return Object.assign(withBasics(writable, life), { request });
}
