// Arbitrary messages of any of our protobuf types, as either library holds
// them, for property tests (message-bridge.test.ts, grpc/reused-writer.test.ts).
import fc from 'fast-check';
import { create, ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';

export type Side = 'ts-proto' | 'protobuf-es';

/**
 * Messages of a type as one side's library holds them, built from the
 * descriptor: ts-proto's (what our handlers answer: Date for Timestamp,
 * numbers for 64-bit integers, each oneof member its own optional property)
 * or protobuf-es's (what the gateway's client sends: bigints, `{ case, value }`).
 * With `hostile`, values the encoder refuses or changes are mixed in.
 */
export function messageOf(side: Side, schema: DescMessage, hostile: boolean, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const member of schema.members) {
    if (member.kind === 'oneof') {
      const cases = member.fields.map((field) =>
        value(side, field, hostile, depth).map((set) =>
          side === 'ts-proto' ? { [tsName(field)]: set } : { [member.localName]: { case: field.localName, value: set } },
        ),
      );
      parts[`\0${member.name}`] = fc.oneof(
        fc.constant({}),
        ...cases,
        ...(hostile && side === 'ts-proto' ? [fc.tuple(cases[0]!, cases.at(-1)!).map(([a, b]) => ({ ...a, ...b }))] : []),
      );
      continue;
    }
    const arbitrary = value(side, member, hostile, depth);
    parts[side === 'ts-proto' ? tsName(member) : member.localName] =
      member.fieldKind === 'message' || (member.fieldKind === 'scalar' && member.presence !== IMPLICIT)
        ? fc.option(arbitrary, { nil: undefined })
        : arbitrary;
  }
  return fc.record(parts).map((record) => {
    const message: Record<string, unknown> = {};
    for (const [key, part] of Object.entries(record)) {
      if (key.startsWith('\0')) Object.assign(message, part);
      else if (part !== undefined) message[key] = part;
    }
    return side === 'ts-proto' ? message : create(schema, message);
  });
}

const IMPLICIT = FeatureSet_FieldPresence.IMPLICIT;
const tsName = (field: DescField): string => field.name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

function value(side: Side, field: DescField, hostile: boolean, depth: number): fc.Arbitrary<unknown> {
  switch (field.fieldKind) {
    case 'scalar':
      return scalar(side, field.scalar, hostile);
    case 'enum':
      return fc.constantFrom(...field.enum.values.map((each) => each.number));
    case 'message':
      return nested(side, field.message, hostile, depth);
    case 'list':
      return fc.array(
        field.listKind === 'scalar'
          ? scalar(side, field.scalar, hostile)
          : field.listKind === 'enum'
            ? fc.constantFrom(...field.enum.values.map((each) => each.number))
            : nested(side, field.message, hostile, depth),
        { maxLength: 3 },
      );
    case 'map':
      return fc.dictionary(
        fc.string({ maxLength: 8 }),
        field.mapKind === 'scalar' ? scalar(side, field.scalar, hostile) : nested(side, field.message as DescMessage, hostile, depth),
        { maxKeys: 3 },
      );
  }
}

function nested(side: Side, schema: DescMessage, hostile: boolean, depth: number): fc.Arbitrary<unknown> {
  if (schema.typeName === 'google.protobuf.Timestamp') {
    if (side === 'ts-proto') return hostile ? fc.date() : fc.date({ noInvalidDate: true });
    const seconds = hostile ? fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) : fc.bigInt({ min: -(10n ** 11n), max: 10n ** 11n });
    return fc.record({ seconds, nanos: fc.integer({ min: -999_999_999, max: 999_999_999 }) }).map((init) => create(schema, init));
  }
  return depth > 2 ? fc.constant(undefined) : messageOf(side, schema, hostile, depth + 1);
}

function scalar(side: Side, type: ScalarType, hostile: boolean): fc.Arbitrary<unknown> {
  const valid = ((): fc.Arbitrary<unknown> => {
    switch (type) {
      case ScalarType.STRING:
        return fc.string({ unit: 'grapheme', maxLength: 12 });
      case ScalarType.BOOL:
        return fc.boolean();
      case ScalarType.INT32:
      case ScalarType.SINT32:
      case ScalarType.SFIXED32:
        return fc.integer();
      case ScalarType.UINT32:
      case ScalarType.FIXED32:
        return fc.nat({ max: 0xffffffff });
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        return side === 'ts-proto' ? fc.maxSafeNat() : fc.maxSafeNat().map(BigInt);
      case ScalarType.BYTES:
        return fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes));
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        return fc.double();
      default:
        return side === 'ts-proto' ? fc.maxSafeInteger() : fc.maxSafeInteger().map(BigInt);
    }
  })();
  if (!hostile) return valid;
  const wrong =
    type === ScalarType.STRING
      ? fc
          .tuple(fc.string({ maxLength: 4 }), fc.integer({ min: 0xd800, max: 0xdfff }))
          .map(([text, half]) => text + String.fromCharCode(half))
      : side === 'ts-proto'
        ? fc.oneof(fc.double(), fc.constant(null), fc.constant('7'), fc.constant(2 ** 53), fc.constant(-1), fc.constant(-0))
        : fc.oneof(fc.constant(2n ** 53n), fc.constant(-(2n ** 60n)), fc.constant(-1), fc.constant(-0), fc.constant(1.5));
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: wrong, weight: 1 });
}
