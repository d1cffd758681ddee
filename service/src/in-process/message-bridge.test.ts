import test from 'ava';
import fc from 'fast-check';
import { create, fromBinary, toBinary, ScalarType, type DescField, type DescMessage, type DescService, type MessageShape } from '@bufbuild/protobuf';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { AssetService, FileService, RouteService, UploadService } from '@switchyard/proto';
import { AssetServiceService } from '../gen/switchyard/v1/assets.js';
import { FileServiceService } from '../gen/switchyard/v1/files.js';
import { RouteServiceService } from '../gen/switchyard/v1/routes.js';
import { UploadServiceService } from '../gen/switchyard/v1/uploads.js';
import { withFastChunks } from '../grpc/chunk-encoding.js';
import { bridgeRequest, bridgeResponse } from './message-bridge.js';

/** Every method's request and response type, with the decoder and encoder the server uses for them (ts-proto's; ReadFile's fast chunk encoder). */
const methods = ([[AssetService, AssetServiceService], [FileService, withFastChunks(FileServiceService)], [RouteService, RouteServiceService], [UploadService, UploadServiceService]] as [DescService, ServiceDefinition][]).flatMap(([service, definition]) =>
  service.methods.map((method) => {
    const served = Object.values(definition).find((candidate) => candidate.path === `/${service.typeName}/${method.name}`);
    if (served === undefined) throw new Error(`${method.name} is not in the generated definition`);
    return { name: `${service.name}.${method.name}`, method, served };
  }),
);

/**
 * Every message type with ts-proto's encoder and decoder for it: the bridge
 * is tested on all of them in both directions (a response type with a
 * Timestamp tests the request direction's Timestamp, which no request has yet).
 */
const types = methods.flatMap(({ name, method, served }) => [
  { name: `${name} request`, schema: method.input, encode: (message: unknown) => served.requestSerialize(message), decode: (bytes: Buffer) => served.requestDeserialize(bytes) },
  { name: `${name} response`, schema: method.output, encode: (message: unknown) => served.responseSerialize(message), decode: (bytes: Buffer) => served.responseDeserialize(bytes) },
]);

/** What the wire makes of a message: encoded and decoded by the two sides' libraries; or the refusal of one of them. */
function overTheWire(pass: () => unknown): { message: unknown } | { refused: unknown } {
  try {
    return { message: pass() };
  } catch (refused) {
    return { refused };
  }
}

type Side = 'ts-proto' | 'protobuf-es';

/**
 * Messages of a type as one side's library holds them, built from the
 * descriptor: ts-proto's (what our handlers answer: Date for Timestamp,
 * numbers for 64-bit integers, each oneof member its own optional property)
 * or protobuf-es's (what the gateway's client sends: bigints, `{ case, value }`).
 * With `hostile`, values the encoder refuses or changes are mixed in.
 */
function messageOf(side: Side, schema: DescMessage, hostile: boolean, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const member of schema.members) {
    if (member.kind === 'oneof') {
      const cases = member.fields.map((field) => value(side, field, hostile, depth).map((set) => (side === 'ts-proto' ? { [tsName(field)]: set } : { [member.localName]: { case: field.localName, value: set } })));
      parts[`\0${member.name}`] = fc.oneof(fc.constant({}), ...cases, ...(hostile && side === 'ts-proto' ? [fc.tuple(cases[0]!, cases.at(-1)!).map(([a, b]) => ({ ...a, ...b }))] : []));
      continue;
    }
    const arbitrary = value(side, member, hostile, depth);
    parts[side === 'ts-proto' ? tsName(member) : member.localName] = member.fieldKind === 'message' || (member.fieldKind === 'scalar' && member.presence !== IMPLICIT) ? fc.option(arbitrary, { nil: undefined }) : arbitrary;
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

const IMPLICIT = 2;
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
      return fc.array(field.listKind === 'scalar' ? scalar(side, field.scalar, hostile) : field.listKind === 'enum' ? fc.constantFrom(...field.enum.values.map((each) => each.number)) : nested(side, field.message, hostile, depth), { maxLength: 3 });
    case 'map':
      return fc.dictionary(fc.string({ maxLength: 8 }), field.mapKind === 'scalar' ? scalar(side, field.scalar, hostile) : nested(side, field.message as DescMessage, hostile, depth), { maxKeys: 3 });
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
      ? fc.tuple(fc.string({ maxLength: 4 }), fc.integer({ min: 0xd800, max: 0xdfff })).map(([text, half]) => text + String.fromCharCode(half))
      : side === 'ts-proto'
        ? fc.oneof(fc.double(), fc.constant(null), fc.constant('7'), fc.constant(2 ** 53), fc.constant(-1), fc.constant(-0))
        : fc.oneof(fc.constant(2n ** 53n), fc.constant(-(2n ** 60n)), fc.constant(-1), fc.constant(-0), fc.constant(1.5));
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: wrong, weight: 1 });
}

const MAX = 4 * 1024 * 1024;

/** The two directions: what the sending side holds, the bridge, and the wire it stands in for (encode with the sender's library, decode with the receiver's). */
const directions = {
  'a ts-proto object (a response) is handed over as the protobuf-es message the wire would give': {
    side: 'ts-proto' as Side,
    bridge: (schema: DescMessage, message: unknown) => bridgeResponse(schema, message),
    wire: ({ schema, encode }: (typeof types)[number], message: unknown) => fromBinary(schema, encode(message)),
  },
  "a protobuf-es message (a request) is handed over as the object ts-proto's decoder would make": {
    side: 'protobuf-es' as Side,
    bridge: (schema: DescMessage, message: unknown) => bridgeRequest(schema, message, MAX),
    wire: ({ schema, decode }: (typeof types)[number], message: unknown) => decode(Buffer.from(toBinary(schema, message as MessageShape<DescMessage>))),
  },
};

for (const [title, { side, bridge, wire }] of Object.entries(directions)) {
  test(`every message type: ${title}`, (t) => {
    for (const type of types) {
      fc.assert(
        fc.property(messageOf(side, type.schema, false), (message) => {
          const overWire = overTheWire(() => wire(type, message));
          const bridged = bridge(type.schema, message);
          t.true('message' in overWire, `${type.name}: the wire refused a valid message`);
          t.not(bridged, undefined, `${type.name}: a valid message was not handed over`);
          t.deepEqual(bridged, (overWire as { message: unknown }).message, type.name);
        }),
        { numRuns: 100 },
      );
    }
  });

  test(`${side} values the wire refuses or changes are not handed over: the channel falls back to the wire for them`, (t) => {
    for (const type of types) {
      fc.assert(
        fc.property(messageOf(side, type.schema, true), (message) => {
          const bridged = bridge(type.schema, message);
          if (bridged === undefined) return;
          const overWire = overTheWire(() => wire(type, message));
          t.true('message' in overWire, `${type.name}: handed over a message the wire refuses`);
          t.deepEqual(bridged, (overWire as { message: unknown }).message, type.name);
        }),
        { numRuns: 100 },
      );
    }
  });
}

test('a request handed over never encodes past the limit given: the bound is an upper bound, for every message type', (t) => {
  for (const type of types) {
    fc.assert(
      fc.property(messageOf('protobuf-es', type.schema, false), fc.nat({ max: 400 }), (message, maxBytes) => {
        if (bridgeRequest(type.schema, message, maxBytes) === undefined) return;
        t.true(toBinary(type.schema, message as MessageShape<DescMessage>).length <= maxBytes, type.name);
      }),
      { numRuns: 100 },
    );
  }
});

test('a request with unknown fields takes the wire, where they count toward its size', (t) => {
  const schema = AssetService.method.getAsset.input;
  const message = create(schema, { id: 'as_1' });
  t.truthy(bridgeRequest(schema, message, MAX));
  t.is(bridgeRequest(schema, { ...message, $unknown: [{ no: 99, wireType: 2, data: new Uint8Array(10) }] }, MAX), undefined);
});

test('a request that may encode past the size limit is left to the wire, which refuses it', (t) => {
  const schema = RouteService.method.createRoute.input;
  const small = create(schema, { method: 'GET', path: '/a', middleware: ['auth'], handler: 'h' });
  t.truthy(bridgeRequest(schema, small, 200));
  const big = create(schema, { method: 'GET', path: '/'.padEnd(40, 'a'), middleware: ['auth'], handler: 'h' });
  t.true(toBinary(schema, big).length < 200);
  t.is(bridgeRequest(schema, big, 200), undefined, 'the bound is above the size; the wire measures it');
  t.is(bridgeRequest(schema, create(schema, { path: '\ud800' }), MAX), undefined, 'a lone surrogate');
  const upload = AssetService.method.uploadAsset.input;
  const chunk = new Uint8Array(70);
  t.is(bridgeRequest(upload, create(upload, { payload: { case: 'chunk', value: chunk } }), 64), undefined, 'bytes count toward the bound');
});

test('the response cases that fall back, one by one', (t) => {
  const asset = AssetService.method.getAsset.output;
  const valid = { id: 'as_1', label: 'x', type: 'image/png', size: 3, url: 'u', sha256: 'ab', uploadedAt: new Date(1_700_000_000_123), createdAt: new Date(-1), version: 1, visibility: 'public' };
  t.truthy(bridgeResponse(asset, valid));
  t.is(bridgeResponse(asset, { ...valid, label: 'lone \ud800' }), undefined, 'a lone surrogate becomes U+FFFD on the wire');
  t.is(bridgeResponse(asset, { ...valid, width: 1.5 }), undefined, 'a non-integer uint32 is refused by the encoder');
  t.is(bridgeResponse(asset, { ...valid, size: 2 ** 60 }), undefined, 'past 2^53 a number is not the integer meant');
  t.is(bridgeResponse(asset, { ...valid, uploadedAt: new Date(Number.NaN) }), undefined, 'an invalid Date');
  t.is(bridgeResponse(asset, { ...valid, id: undefined }), undefined, 'a field without presence the encoder always writes');
  t.is(bridgeResponse(asset, null), undefined);
  const readFile = FileService.method.readFile.output;
  t.deepEqual(bridgeResponse(readFile, { chunk: Buffer.from('abc') })?.payload, { case: 'chunk', value: Buffer.from('abc') });
  t.is(bridgeResponse(readFile, { chunk: Buffer.from('abc'), info: { type: 't', size: 3, sha256: '', rangeStart: 0, rangeEnd: 2, visibility: '' } }), undefined, 'two members of a oneof');
  const timestamp = bridgeResponse(asset, { ...valid, createdAt: new Date(-1) })?.createdAt;
  t.deepEqual([timestamp?.seconds, timestamp?.nanos], [0n, -1_000_000], "negative times as ts-proto's toTimestamp writes them");
});

test('bytes are copied: a handler may reuse its buffer once it has written it', (t) => {
  const chunk = Buffer.from('abc');
  const bridged = bridgeResponse(FileService.method.readFile.output, { chunk });
  chunk.fill(0);
  t.deepEqual(bridged?.payload.value, Buffer.from('abc'));
});
