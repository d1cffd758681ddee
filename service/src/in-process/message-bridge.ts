// Hands a handler's response to the gateway's client without encoding and
// decoding it: the handlers build ts-proto objects, the gateway reads
// protobuf-es messages, and this builds the one from the other, walking the
// protobuf-es descriptor. The result equals what the wire would give
// (message-bridge.test.ts checks it against encode-then-decode for every
// response type, with generated messages); a response it cannot convert
// exactly (a value the encoder would refuse or change: a non-integer uint32, a
// lone surrogate, an invalid Date, a oneof with two members set, ...) comes
// back `undefined`, and the channel then uses the wire bytes as before, so
// those cases fail or change exactly as over gRPC.
//
// Written by hand for speed: ts-proto's encoder and protobuf-es's reflective
// decoder were 13 % of the all-in-one server's busy CPU samples under the
// rest-get-asset load (responseSerialize 4.6 %, fromBinary 8.2 %, inclusive);
// with this, server CPU per request fell 7 % for rest-get-asset and 11 % for
// file-serve-16kib (`bench/tools/compare-builds.ts get|file`, 8 alternating
// rounds, medians 274 → 255 and 327 → 291 µs), and a GetAsset call in-process
// allocates 21.0 instead of 24.8 KiB (bench/tools/in-process-calls.ts).
import { create, ScalarType, type DescField, type DescMessage, type MessageShape } from '@bufbuild/protobuf';

/** Converts one value; `FAIL` when it cannot be converted exactly. */
type Convert = (value: unknown) => unknown;

/** Returned by a Convert for a value the wire would refuse or change. */
const FAIL: unique symbol = Symbol('not convertible');

/** Compiled converters by message type; null for a type with a field this does not handle. */
const compiled = new WeakMap<DescMessage, Convert | null>();

/**
 * The protobuf-es message `schema` describes, built from a ts-proto object
 * of the same type, or undefined when only the wire can convert it exactly.
 */
export function bridgeMessage<Desc extends DescMessage>(schema: Desc, source: unknown): MessageShape<Desc> | undefined {
  const convert = converterOf(schema);
  if (convert === null) return undefined;
  const message = convert(source);
  return message === FAIL ? undefined : (message as MessageShape<Desc>);
}

function converterOf(schema: DescMessage): Convert | null {
  const known = compiled.get(schema);
  if (known !== undefined) return known;
  // A type that contains itself meets this placeholder while compiling; called, it uses the finished converter.
  compiled.set(schema, (value) => compiled.get(schema)?.(value) ?? FAIL);
  const built = compileMessage(schema);
  compiled.set(schema, built);
  return built;
}

/** One step of a message's conversion: reads ts-proto's properties, writes protobuf-es's; false when it fails. */
type Step = (source: Record<string, unknown>, init: Record<string, unknown>) => boolean;

function compileMessage(schema: DescMessage): Convert | null {
  if (schema.typeName === 'google.protobuf.Timestamp') return convertTimestamp;
  // ts-proto maps the other well-known types (wrappers, Struct, Any, ...) to shapes of its own.
  if (schema.typeName.startsWith('google.protobuf.') && schema.typeName !== 'google.protobuf.Empty') return null;
  const steps: Step[] = [];
  for (const member of schema.members) {
    const step = member.kind === 'oneof' ? oneofStep(member.localName, member.fields) : fieldStep(member);
    if (step === null) return null;
    steps.push(step);
  }
  return (value) => {
    if (typeof value !== 'object' || value === null) return FAIL;
    const source = value as Record<string, unknown>;
    const init: Record<string, unknown> = {};
    for (const step of steps) if (!step(source, init)) return FAIL;
    return create(schema, init);
  };
}

/** ts-proto's property name for a field (lowerCamelCase of the proto name). */
function tsProtoName(field: DescField): string {
  return field.name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

function fieldStep(field: DescField): Step | null {
  const from = tsProtoName(field);
  const to = field.localName;
  const convert = valueConverter(field);
  if (convert === null) return null;
  // Without explicit presence ts-proto always encodes the property; undefined there is a value its encoder refuses.
  const required = field.fieldKind === 'list' || field.fieldKind === 'map' || (field.fieldKind !== 'message' && field.presence === IMPLICIT);
  return (source, init) => {
    const value = source[from];
    if (value === undefined) return !required;
    const converted = convert(value);
    if (converted === FAIL) return false;
    init[to] = converted;
    return true;
  };
}

/** ts-proto gives each member of a oneof its own optional property; protobuf-es one `{ case, value }`. */
function oneofStep(name: string, fields: readonly DescField[]): Step | null {
  const members = fields.map((field) => ({ from: tsProtoName(field), to: field.localName, convert: valueConverter(field) }));
  if (members.some((member) => member.convert === null)) return null;
  return (source, init) => {
    let chosen: { case: string; value: unknown } | undefined;
    for (const member of members) {
      const value = source[member.from];
      if (value === undefined) continue;
      // Two set: the encoder writes both and the decoder keeps the last; leave that to them.
      if (chosen !== undefined) return false;
      const converted = member.convert!(value);
      if (converted === FAIL) return false;
      chosen = { case: member.to, value: converted };
    }
    if (chosen !== undefined) init[name] = chosen;
    return true;
  };
}

/** field presence IMPLICIT (proto3 fields without `optional`), as protobuf-es numbers it. */
const IMPLICIT = 2;

function valueConverter(field: DescField): Convert | null {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarConverter(field.scalar, field.longAsString);
    case 'enum':
      return convertInt32;
    case 'message':
      return converterOf(field.message);
    case 'list': {
      const element = field.listKind === 'scalar' ? scalarConverter(field.scalar, field.longAsString) : field.listKind === 'enum' ? convertInt32 : converterOf(field.message);
      return element === null ? null : listConverter(element);
    }
    case 'map': {
      if (field.mapKey !== ScalarType.STRING) return null;
      const value = field.mapKind === 'scalar' ? scalarConverter(field.scalar, false) : field.mapKind === 'enum' ? convertInt32 : converterOf(field.message);
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
    }
    return out;
  };
}

function scalarConverter(scalar: ScalarType, longAsString: boolean): Convert | null {
  switch (scalar) {
    case ScalarType.STRING:
      return (value) => (typeof value === 'string' && isWellFormed(value) ? value : FAIL);
    case ScalarType.BOOL:
      return (value) => (typeof value === 'boolean' ? value : FAIL);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return convertInt32;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return (value) => (Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffffffff ? value : FAIL);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return (value) => (Number.isSafeInteger(value) ? (longAsString ? String(value) : BigInt(value as number)) : FAIL);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return (value) => (Number.isSafeInteger(value) && (value as number) >= 0 ? (longAsString ? String(value) : BigInt(value as number)) : FAIL);
    case ScalarType.DOUBLE:
      return (value) => (typeof value === 'number' ? value : FAIL);
    case ScalarType.FLOAT:
      // The wire holds 32 bits: what comes out is the value rounded to them.
      return (value) => (typeof value === 'number' && !(Math.abs(value) > FLOAT32_MAX && Number.isFinite(value)) ? Math.fround(value) : FAIL);
    case ScalarType.BYTES:
      // A copy in a Buffer, as the wire gives one: the handler may reuse its buffer once it has written it.
      return (value) => (value instanceof Uint8Array ? Buffer.from(value) : FAIL);
    default:
      return null;
  }
}

/** False for a string with a lone surrogate, which UTF-8 encoding would replace (Node 20 has the method; ES2022's types do not). */
const isWellFormed = (value: string): boolean => (value as string & { isWellFormed(): boolean }).isWellFormed();

const FLOAT32_MAX = 3.4028234663852886e38;

const convertInt32: Convert = (value) => (Number.isInteger(value) && (value as number) >= -0x80000000 && (value as number) <= 0x7fffffff ? value : FAIL);

/** ts-proto's Date, as its toTimestamp puts it on the wire (seconds truncated toward zero, the rest as nanos). */
const convertTimestamp: Convert = (value) => {
  if (!(value instanceof Date)) return FAIL;
  const millis = value.getTime();
  if (!Number.isFinite(millis)) return FAIL;
  return { $typeName: 'google.protobuf.Timestamp', seconds: BigInt(Math.trunc(millis / 1_000)), nanos: (millis % 1_000) * 1_000_000 || 0 };
};
