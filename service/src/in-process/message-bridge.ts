// Hands messages across the in-process channel without encoding and decoding
// them: the gateway's client speaks protobuf-es messages, the handlers ts-proto
// objects, and this builds the one from the other, walking the protobuf-es
// descriptor. Each result equals what the wire would give
// (message-bridge.test.ts checks both directions against encode-then-decode
// for every request and response type, with generated messages). A message it
// cannot convert exactly (a value the encoder would refuse or change: a
// non-integer uint32, a lone surrogate, an invalid Date, a oneof with two
// members set, a request that may be past the server's size limit, ...) comes
// back `undefined`, and the channel then uses the wire bytes as before, so
// those cases fail or change exactly as over gRPC.
//
// Written by hand for speed: no ts-proto encoding and no protobuf-es
// reflective decoding per message.
// Justified by rest-get-asset and file-serve-16kib (bench/hand-written-parts.md#message-bridge).
import { create, ScalarType, type DescField, type DescMessage, type DescOneof, type MessageShape } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';
import { isHandedOver } from '@switchyard/runtime';

/** Converts one value; `FAIL` when it cannot be converted exactly. */
type Convert = (value: unknown) => unknown;

/** Returned by a Convert for a value the wire would refuse or change. */
const FAIL: unique symbol = Symbol('not convertible');

/**
 * The protobuf-es message `schema` describes, built from a ts-proto object
 * of the same type (a handler's response), or undefined when only the wire
 * can convert it exactly.
 */
export function bridgeResponse<Desc extends DescMessage>(schema: Desc, response: unknown): MessageShape<Desc> | undefined {
  const message = converterOf(toProtobufEs, schema)?.(response);
  return message === undefined || message === FAIL ? undefined : (message as MessageShape<Desc>);
}

/**
 * The ts-proto object the server's deserializer would make of `message` (a
 * request from the gateway's client), or undefined when only the wire can
 * convert it exactly, or its encoding might be longer than `maxBytes`.
 */
export function bridgeRequest(schema: DescMessage, message: unknown, maxBytes: number): unknown {
  encodedBound = 0;
  const converted = converterOf(toTsProto, schema)?.(message);
  return converted === undefined || converted === FAIL || encodedBound > maxBytes ? undefined : converted;
}

/**
 * An upper bound of the encoded size of the request being converted:
 * conversion is synchronous, so one counter serves every call. Each field,
 * element and map entry counts 16 bytes for its tag, length and number, plus
 * its string (3 bytes per UTF-16 unit at most) or bytes.
 */
let encodedBound = 0;
const FIELD_BOUND = 16;

/** One direction of the bridge: how its side represents what differs between the two libraries. */
interface Direction {
  /** Compiled converters by message type; null for a type with a field this does not handle. */
  readonly compiled: WeakMap<DescMessage, Convert | null>;
  readonly timestamp: Convert;
  scalar(type: ScalarType, longAsString: boolean): Convert | null;
  /** Builds a message from its converted fields (in declaration order, each oneof member as its own field). */
  message(schema: DescMessage, fields: readonly FieldPlan[]): Convert;
}

interface FieldPlan {
  readonly field: DescField;
  /** ts-proto's property name (lowerCamelCase of the proto name). */
  readonly tsName: string;
  readonly convert: Convert;
  /** Without explicit presence ts-proto always writes the property; a list and a map always have one too. */
  readonly required: boolean;
}

/** field presence IMPLICIT: proto3 fields without `optional`. */
const IMPLICIT = FeatureSet_FieldPresence.IMPLICIT;

function converterOf(direction: Direction, schema: DescMessage): Convert | null {
  const known = direction.compiled.get(schema);
  if (known !== undefined) return known;
  // A type that contains itself meets this placeholder while compiling; called, it uses the finished converter.
  direction.compiled.set(schema, (value) => direction.compiled.get(schema)?.(value) ?? FAIL);
  const built = compileMessage(direction, schema);
  direction.compiled.set(schema, built);
  return built;
}

function compileMessage(direction: Direction, schema: DescMessage): Convert | null {
  if (schema.typeName === 'google.protobuf.Timestamp') return direction.timestamp;
  // ts-proto maps the other well-known types (wrappers, Struct, Any, ...) to shapes of its own.
  if (schema.typeName.startsWith('google.protobuf.') && schema.typeName !== 'google.protobuf.Empty') return null;
  const fields: FieldPlan[] = [];
  for (const field of schema.fields) {
    const convert = valueConverter(direction, field);
    if (convert === null) return null;
    const required =
      field.fieldKind === 'list' ||
      field.fieldKind === 'map' ||
      (field.fieldKind !== 'message' && field.presence === IMPLICIT && field.oneof === undefined);
    fields.push({ field, tsName: field.name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase()), convert, required });
  }
  return direction.message(schema, fields);
}

function valueConverter(direction: Direction, field: DescField): Convert | null {
  switch (field.fieldKind) {
    case 'scalar':
      return direction.scalar(field.scalar, field.longAsString);
    case 'enum':
      return convertInt32;
    case 'message':
      return converterOf(direction, field.message);
    case 'list': {
      const element =
        field.listKind === 'scalar'
          ? direction.scalar(field.scalar, field.longAsString)
          : field.listKind === 'enum'
            ? convertInt32
            : converterOf(direction, field.message);
      return element === null ? null : listConverter(element);
    }
    case 'map': {
      if (field.mapKey !== ScalarType.STRING) return null;
      const value =
        field.mapKind === 'scalar'
          ? direction.scalar(field.scalar, false)
          : field.mapKind === 'enum'
            ? convertInt32
            : converterOf(direction, field.message);
      return value === null ? null : mapConverter(value);
    }
  }
}

function listConverter(element: Convert): Convert {
  return (value) => {
    if (!Array.isArray(value)) return FAIL;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const converted = element(value[i]);
      if (converted === FAIL) return FAIL;
      out[i] = converted;
      encodedBound += FIELD_BOUND;
    }
    return out;
  };
}

function mapConverter(entry: Convert): Convert {
  return (value) => {
    if (typeof value !== 'object' || value === null) return FAIL;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__' || !isWellFormed(key)) return FAIL;
      const converted = entry(item);
      if (converted === FAIL) return FAIL;
      out[key] = converted;
      encodedBound += 2 * FIELD_BOUND + 3 * key.length;
    }
    return out;
  };
}

/** ts-proto objects to protobuf-es messages (responses). */
const toProtobufEs: Direction = {
  compiled: new WeakMap(),
  // ts-proto's Date, as its toTimestamp puts it on the wire (seconds truncated toward zero, the rest as nanos).
  timestamp: (value) => {
    if (!(value instanceof Date)) return FAIL;
    const millis = value.getTime();
    if (!Number.isFinite(millis)) return FAIL;
    return { $typeName: 'google.protobuf.Timestamp', seconds: BigInt(Math.trunc(millis / 1_000)), nanos: (millis % 1_000) * 1_000_000 + 0 };
  },
  scalar(type, longAsString) {
    switch (type) {
      case ScalarType.INT64:
      case ScalarType.SINT64:
      case ScalarType.SFIXED64:
        return (value) => (Number.isSafeInteger(value) ? (longAsString ? String(value) : BigInt(value as number)) : FAIL);
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        return (value) =>
          Number.isSafeInteger(value) && (value as number) >= 0 ? (longAsString ? String(value) : BigInt(value as number)) : FAIL;
      default:
        return sharedScalar(type);
    }
  },
  message(schema, fields) {
    // ts-proto gives each member of a oneof its own optional property; protobuf-es one `{ case, value }` per oneof.
    return (value) => {
      if (typeof value !== 'object' || value === null) return FAIL;
      const source = value as Record<string, unknown>;
      const init: Record<string, unknown> = {};
      for (const { field, tsName, convert, required } of fields) {
        const item = source[tsName];
        if (item === undefined) {
          if (required) return FAIL;
          continue;
        }
        const converted = convert(item);
        if (converted === FAIL) return FAIL;
        // Empty implicit bytes are not on the wire: the decoder's default is create()'s, a plain Uint8Array.
        if (required && field.fieldKind === 'scalar' && field.scalar === ScalarType.BYTES && (converted as Uint8Array).length === 0)
          continue;
        if (field.oneof === undefined) init[field.localName] = converted;
        // Two members set: the encoder writes both and the decoder keeps the last; leave that to them.
        else if (init[field.oneof.localName] !== undefined) return FAIL;
        else init[field.oneof.localName] = { case: field.localName, value: converted };
      }
      return create(schema, init);
    };
  },
};

/** protobuf-es messages to ts-proto objects (requests), as ts-proto's decoder builds them: every property present, unset ones undefined. */
const toTsProto: Direction = {
  compiled: new WeakMap(),
  // ts-proto's fromTimestamp, after its decoder refused seconds past 2^53.
  timestamp: (value) => {
    if (typeof value !== 'object' || value === null) return FAIL;
    const { seconds, nanos } = value as { seconds?: unknown; nanos?: unknown };
    const whole = toSafeNumber(seconds);
    const fraction = convertInt32(nanos);
    if (whole === FAIL || fraction === FAIL) return FAIL;
    encodedBound += 2 * FIELD_BOUND;
    return new Date((whole as number) * 1_000 + (fraction as number) / 1_000_000);
  },
  scalar(type) {
    switch (type) {
      case ScalarType.INT64:
      case ScalarType.SINT64:
      case ScalarType.SFIXED64:
        return toSafeNumber;
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        return (value) => {
          const number = toSafeNumber(value);
          return number !== FAIL && (number as number) >= 0 ? number : FAIL;
        };
      default:
        return sharedScalar(type);
    }
  },
  message(_schema, fields) {
    const oneofs = new Set<DescOneof>(fields.flatMap(({ field }) => (field.oneof ? [field.oneof] : [])));
    return (value) => {
      if (typeof value !== 'object' || value === null) return FAIL;
      const source = value as Record<string, unknown>;
      // Unknown fields go on the wire (and count toward its size) but into no ts-proto property: the wire decides.
      if (Array.isArray(source.$unknown) && source.$unknown.length > 0) return FAIL;
      for (const oneof of oneofs) if (typeof source[oneof.localName] !== 'object' || source[oneof.localName] === null) return FAIL;
      const out: Record<string, unknown> = {};
      for (const { field, tsName, convert, required } of fields) {
        let item: unknown;
        if (field.oneof === undefined) item = source[field.localName];
        else {
          const chosen = source[field.oneof.localName] as { case?: unknown; value?: unknown };
          item = chosen.case === field.localName ? chosen.value : undefined;
        }
        if (item === undefined) {
          if (required) return FAIL;
          out[tsName] = undefined;
          continue;
        }
        const converted = convert(item);
        if (converted === FAIL) return FAIL;
        out[tsName] = converted;
        encodedBound += FIELD_BOUND;
      }
      return out;
    };
  },
};

/** A bigint (or number) as ts-proto's decoder gives a 64-bit integer: a number, refused past 2^53. */
const toSafeNumber: Convert = (value) => {
  if (typeof value === 'bigint') return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : FAIL;
  return Number.isSafeInteger(value) ? (value as number) + 0 : FAIL;
};
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The scalars both libraries represent alike. */
function sharedScalar(type: ScalarType): Convert | null {
  switch (type) {
    case ScalarType.STRING:
      return convertString;
    case ScalarType.BOOL:
      return (value) => (typeof value === 'boolean' ? value : FAIL);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return convertInt32;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return (value) =>
        Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffffffff ? (value as number) + 0 : FAIL;
    case ScalarType.BYTES:
      // A copy in a Buffer, as the wire gives one: the sender may reuse its buffer once it has written it,
      // unless it handed the bytes over (runtime's handOver); those are passed on as a Buffer of the same memory.
      return (value) => {
        if (!(value instanceof Uint8Array)) return FAIL;
        encodedBound += value.length;
        if (!isHandedOver(value)) return Buffer.from(value);
        return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      };
    default:
      // DOUBLE and FLOAT (none in our protos; -0 and rounding depend on presence): the wire converts them.
      return null;
  }
}

/** A lone surrogate becomes U+FFFD in UTF-8: such a string is left to the wire. */
const convertString: Convert = (value) => {
  if (typeof value !== 'string' || !isWellFormed(value)) return FAIL;
  encodedBound += 3 * value.length;
  return value;
};

// `+ 0`: a -0 crosses the wire as the varint 0.
const convertInt32: Convert = (value) =>
  Number.isInteger(value) && (value as number) >= -0x80000000 && (value as number) <= 0x7fffffff ? (value as number) + 0 : FAIL;

/** False for a string with a lone surrogate (Node 20 has the method; ES2022's types do not). */
const isWellFormed = (value: string): boolean => (value as string & { isWellFormed(): boolean }).isWellFormed();
