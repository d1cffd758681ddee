// Response encoding on one reused BinaryWriter. ts-proto's generated
// serializers encode every response with a new BinaryWriter, whose buffer
// starts at 128 bytes and doubles as it fills (an Asset grows it twice), then
// slice it and copy the slice into a Buffer for grpc-js: four allocations and
// three copies per reply. Here the writer's grown buffer is kept, the slice is
// the one copy, and the Buffer is a view of it.
// Justified by grpc-get-asset (bench/hand-written-parts.md#reused-writer).
// `reused-writer.test.ts` holds every response type byte-equal to the
// generated serializer.
import type { DescService } from '@bufbuild/protobuf';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import * as assets from '../gen/switchyard/v1/assets.js';
import * as routes from '../gen/switchyard/v1/routes.js';
import * as uploads from '../gen/switchyard/v1/uploads.js';

interface Encoder {
  encode(message: unknown, writer?: BinaryWriter): BinaryWriter;
}

/** A writer that grew past this is dropped after use, so one huge reply does not pin its buffer. */
const MAX_KEPT_BYTES = 64 * 1024;

/** ts-proto's message functions by full type name (`switchyard.v1.Asset`; nested `A_B` is `A.B`), for the services that take this writer (FileService's reply has its own encoder, chunk-encoding.ts). */
const ENCODERS: ReadonlyMap<string, Encoder> = new Map(
  [assets, routes, uploads].flatMap((module) =>
    Object.entries(module)
      .filter((entry): entry is [string, Encoder] => isEncoder(entry[1]))
      .map(([name, fns]) => [`${module.protobufPackage}.${name.replace(/_/g, '.')}`, fns] as const),
  ),
);

function isEncoder(value: unknown): value is Encoder {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<Encoder>).encode === 'function' &&
    typeof (value as { decode?: unknown }).decode === 'function'
  );
}

let writer = new BinaryWriter();

/** `message`'s wire bytes by `fns`, on the shared writer: encoding is synchronous, so no two calls share it at once. */
function encodeReusing(fns: Encoder, message: unknown): Buffer {
  let bytes: Uint8Array;
  try {
    bytes = fns.encode(message, writer).finish();
  } catch (error) {
    // A refused value leaves the writer mid-message.
    writer = new BinaryWriter();
    throw error;
  }
  if (bytes.byteLength > MAX_KEPT_BYTES) writer = new BinaryWriter();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * `definition` (ts-proto's, for `service`) with every response serialized on
 * the shared writer. A method whose response type is not among ours keeps
 * its generated serializer.
 */
export function withReusedWriter<D extends ServiceDefinition>(definition: D, service: DescService): D {
  const methods = Object.entries(definition).map(([name, method]: [string, MethodDefinition<unknown, unknown>]) => {
    const output = service.methods.find((candidate) => method.path === `/${service.typeName}/${candidate.name}`)?.output.typeName;
    const fns = output === undefined ? undefined : ENCODERS.get(output);
    return [name, fns === undefined ? method : { ...method, responseSerialize: (message: unknown) => encodeReusing(fns, message) }];
  });
  return Object.fromEntries(methods) as D;
}
