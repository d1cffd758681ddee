import test from 'ava';
import fc from 'fast-check';
import { fromBinary, ScalarType, type DescField, type DescMessage, type DescService } from '@bufbuild/protobuf';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { AssetService, FileService, RouteService, UploadService } from '@switchyard/proto';
import { AssetServiceService } from '../gen/switchyard/v1/assets.js';
import { FileServiceService } from '../gen/switchyard/v1/files.js';
import { RouteServiceService } from '../gen/switchyard/v1/routes.js';
import { UploadServiceService } from '../gen/switchyard/v1/uploads.js';
import { withFastChunks } from '../grpc/chunk-encoding.js';
import { bridgeMessage } from './message-bridge.js';

/** Every method's response type with the encoder the server uses for it (ts-proto's, ReadFile's fast one). */
const responses = ([[AssetService, AssetServiceService], [FileService, withFastChunks(FileServiceService)], [RouteService, RouteServiceService], [UploadService, UploadServiceService]] as [DescService, ServiceDefinition][]).flatMap(([service, definition]) =>
  service.methods.map((method) => {
    const served = Object.values(definition).find((candidate) => candidate.path === `/${service.typeName}/${method.name}`);
    if (served === undefined) throw new Error(`${method.name} is not in the generated definition`);
    return { name: `${service.name}.${method.name}`, schema: method.output, serialize: (message: unknown) => served.responseSerialize(message) };
  }),
);

/** What the wire makes of a ts-proto response: the bytes grpc-js sends, decoded as the gateway's client does; or the encoder's refusal. */
function overTheWire(schema: DescMessage, serialize: (message: unknown) => Buffer, message: unknown): { message: unknown } | { refused: unknown } {
  try {
    return { message: fromBinary(schema, serialize(message)) };
  } catch (refused) {
    return { refused };
  }
}

/**
 * ts-proto objects of a message type, built from its descriptor: the shapes
 * our handlers answer (Date for Timestamp, numbers for 64-bit integers, each
 * oneof member its own optional property). With `hostile`, values the
 * encoder refuses or changes are mixed in.
 */
function tsProtoMessage(schema: DescMessage, hostile: boolean, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const member of schema.members) {
    if (member.kind === 'oneof') {
      const cases = member.fields.map((field) => value(field, hostile, depth).map((set) => ({ [tsName(field)]: set })));
      parts[`\0${member.name}`] = fc.oneof(fc.constant({}), ...cases, ...(hostile ? [fc.tuple(cases[0]!, cases.at(-1)!).map(([a, b]) => ({ ...a, ...b }))] : []));
      continue;
    }
    const arbitrary = value(member, hostile, depth);
    parts[tsName(member)] = member.fieldKind === 'message' || (member.fieldKind === 'scalar' && member.presence !== IMPLICIT) ? fc.option(arbitrary, { nil: undefined }) : arbitrary;
  }
  return fc.record(parts).map((record) => {
    const message: Record<string, unknown> = {};
    for (const [key, part] of Object.entries(record)) {
      if (key.startsWith('\0')) Object.assign(message, part);
      else if (part !== undefined) message[key] = part;
    }
    return message;
  });
}

const IMPLICIT = 2;
const tsName = (field: DescField): string => field.name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

function value(field: DescField, hostile: boolean, depth: number): fc.Arbitrary<unknown> {
  switch (field.fieldKind) {
    case 'scalar':
      return scalar(field.scalar, hostile);
    case 'enum':
      return fc.constantFrom(...field.enum.values.map((each) => each.number));
    case 'message':
      return nested(field.message, hostile, depth);
    case 'list':
      return fc.array(field.listKind === 'scalar' ? scalar(field.scalar, hostile) : field.listKind === 'enum' ? fc.constantFrom(...field.enum.values.map((each) => each.number)) : nested(field.message, hostile, depth), { maxLength: 3 });
    case 'map':
      return fc.dictionary(fc.string({ maxLength: 8 }), field.mapKind === 'scalar' ? scalar(field.scalar, hostile) : nested(field.message as DescMessage, hostile, depth), { maxKeys: 3 });
  }
}

function nested(schema: DescMessage, hostile: boolean, depth: number): fc.Arbitrary<unknown> {
  if (schema.typeName === 'google.protobuf.Timestamp') return hostile ? fc.date() : fc.date({ noInvalidDate: true });
  return depth > 2 ? fc.constant(undefined) : tsProtoMessage(schema, hostile, depth + 1);
}

function scalar(type: ScalarType, hostile: boolean): fc.Arbitrary<unknown> {
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
        return fc.maxSafeNat();
      case ScalarType.BYTES:
        return fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes));
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        return fc.double();
      default:
        return fc.maxSafeInteger();
    }
  })();
  if (!hostile) return valid;
  const wrong = type === ScalarType.STRING ? fc.tuple(fc.string({ maxLength: 4 }), fc.integer({ min: 0xd800, max: 0xdfff })).map(([text, half]) => text + String.fromCharCode(half)) : fc.oneof(fc.double(), fc.constant(null), fc.constant('7'), fc.constant(2 ** 53), fc.constant(-1));
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: wrong, weight: 1 });
}

test('every response type: a ts-proto response is handed over as the message the wire would give', (t) => {
  for (const { name, schema, serialize } of responses) {
    fc.assert(
      fc.property(tsProtoMessage(schema, false), (message) => {
        const wire = overTheWire(schema, serialize, message);
        const bridged = bridgeMessage(schema, message);
        t.true('message' in wire, `${name}: the wire refused a valid message`);
        t.not(bridged, undefined, `${name}: a valid message was not handed over`);
        t.deepEqual(bridged, (wire as { message: unknown }).message, name);
      }),
      { numRuns: 60 },
    );
  }
});

test('values the wire refuses or changes are not handed over: the channel falls back to the wire for them', (t) => {
  for (const { name, schema, serialize } of responses) {
    fc.assert(
      fc.property(tsProtoMessage(schema, true), (message) => {
        const bridged = bridgeMessage(schema, message);
        if (bridged === undefined) return;
        const wire = overTheWire(schema, serialize, message);
        t.true('message' in wire, `${name}: handed over a message the wire refuses`);
        t.deepEqual(bridged, (wire as { message: unknown }).message, name);
      }),
      { numRuns: 80 },
    );
  }
});

test('the cases that fall back, one by one', (t) => {
  const asset = AssetService.method.getAsset.output;
  const valid = { id: 'as_1', label: 'x', type: 'image/png', size: 3, url: 'u', sha256: 'ab', uploadedAt: new Date(1_700_000_000_123), createdAt: new Date(-1), version: 1, visibility: 'public' };
  t.truthy(bridgeMessage(asset, valid));
  t.is(bridgeMessage(asset, { ...valid, label: 'lone \ud800' }), undefined, 'a lone surrogate becomes U+FFFD on the wire');
  t.is(bridgeMessage(asset, { ...valid, width: 1.5 }), undefined, 'a non-integer uint32 is refused by the encoder');
  t.is(bridgeMessage(asset, { ...valid, size: 2 ** 60 }), undefined, 'past 2^53 a number is not the integer meant');
  t.is(bridgeMessage(asset, { ...valid, uploadedAt: new Date(Number.NaN) }), undefined, 'an invalid Date');
  t.is(bridgeMessage(asset, { ...valid, id: undefined }), undefined, 'a field without presence the encoder always writes');
  t.is(bridgeMessage(asset, null), undefined);
  const readFile = FileService.method.readFile.output;
  t.deepEqual(bridgeMessage(readFile, { chunk: Buffer.from('abc') })?.payload, { case: 'chunk', value: Buffer.from('abc') });
  t.is(bridgeMessage(readFile, { chunk: Buffer.from('abc'), info: { type: 't', size: 3, sha256: '', rangeStart: 0, rangeEnd: 2, visibility: '' } }), undefined, 'two members of a oneof');
  const timestamp = bridgeMessage(asset, { ...valid, createdAt: new Date(-1) })?.createdAt;
  t.deepEqual([timestamp?.seconds, timestamp?.nanos], [0n, -1_000_000], "negative times as ts-proto's toTimestamp writes them");
});

test('bytes are copied: a handler may reuse its buffer once it has written it', (t) => {
  const chunk = Buffer.from('abc');
  const bridged = bridgeMessage(FileService.method.readFile.output, { chunk });
  chunk.fill(0);
  t.deepEqual(bridged?.payload.value, Buffer.from('abc'));
});
