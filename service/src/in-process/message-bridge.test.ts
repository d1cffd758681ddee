import test from 'ava';
import fc from 'fast-check';
import { create, fromBinary, toBinary, type DescMessage, type DescService, type MessageShape } from '@bufbuild/protobuf';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { AssetService, FileService, KeyService, RouteService, UploadService, WebhookService } from '@switchyard/proto';
import { AssetServiceService } from '../gen/switchyard/v1/assets.js';
import { FileServiceService } from '../gen/switchyard/v1/files.js';
import { RouteServiceService } from '../gen/switchyard/v1/routes.js';
import { UploadServiceService } from '../gen/switchyard/v1/uploads.js';
import { KeyServiceService } from '../gen/switchyard/v1/keys.js';
import { WebhookServiceService } from '../gen/switchyard/v1/webhooks.js';
import { withFastChunks } from '../grpc/chunk-encoding.js';
import { handOver } from '@switchyard/runtime';
import { bridgeRequest, bridgeResponse } from './message-bridge.js';
import { messageOf, type Side } from './message-arbitraries.test-support.js';

/** Every method's request and response type, with the decoder and encoder the server uses for them (ts-proto's; ReadFile's fast chunk encoder). */
const methods = (
  [
    [AssetService, AssetServiceService],
    [FileService, withFastChunks(FileServiceService)],
    [RouteService, RouteServiceService],
    [UploadService, UploadServiceService],
    [KeyService, KeyServiceService],
    [WebhookService, WebhookServiceService],
  ] as [DescService, ServiceDefinition][]
).flatMap(([service, definition]) =>
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
  {
    name: `${name} request`,
    schema: method.input,
    encode: (message: unknown) => served.requestSerialize(message),
    decode: (bytes: Buffer): unknown => served.requestDeserialize(bytes),
  },
  {
    name: `${name} response`,
    schema: method.output,
    encode: (message: unknown) => served.responseSerialize(message),
    decode: (bytes: Buffer): unknown => served.responseDeserialize(bytes),
  },
]);

/** What the wire makes of a message: encoded and decoded by the two sides' libraries; or the refusal of one of them. */
function overTheWire(pass: () => unknown): { message: unknown } | { refused: unknown } {
  try {
    return { message: pass() };
  } catch (refused) {
    return { refused };
  }
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
    wire: ({ schema, decode }: (typeof types)[number], message: unknown) =>
      decode(Buffer.from(toBinary(schema, message as MessageShape<DescMessage>))),
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
  const valid = {
    id: 'as_1',
    label: 'x',
    type: 'image/png',
    size: 3,
    url: 'u',
    sha256: 'ab',
    uploadedAt: new Date(1_700_000_000_123),
    createdAt: new Date(-1),
    version: 1,
    visibility: 'public',
    name: 'Übersicht.png',
  };
  t.truthy(bridgeResponse(asset, valid));
  t.is(bridgeResponse(asset, { ...valid, label: 'lone \ud800' }), undefined, 'a lone surrogate becomes U+FFFD on the wire');
  t.is(bridgeResponse(asset, { ...valid, width: 1.5 }), undefined, 'a non-integer uint32 is refused by the encoder');
  t.is(bridgeResponse(asset, { ...valid, size: 2 ** 60 }), undefined, 'past 2^53 a number is not the integer meant');
  t.is(bridgeResponse(asset, { ...valid, uploadedAt: new Date(Number.NaN) }), undefined, 'an invalid Date');
  t.is(bridgeResponse(asset, { ...valid, id: undefined }), undefined, 'a field without presence the encoder always writes');
  t.is(bridgeResponse(asset, null), undefined);
  const readFile = FileService.method.readFile.output;
  t.deepEqual(bridgeResponse(readFile, { chunk: Buffer.from('abc') })?.payload, { case: 'chunk', value: Buffer.from('abc') });
  t.is(
    bridgeResponse(readFile, {
      chunk: Buffer.from('abc'),
      info: { type: 't', size: 3, sha256: '', rangeStart: 0, rangeEnd: 2, visibility: '' },
    }),
    undefined,
    'two members of a oneof',
  );
  const timestamp = bridgeResponse(asset, { ...valid, createdAt: new Date(-1) })?.createdAt;
  t.deepEqual([timestamp?.seconds, timestamp?.nanos], [0n, -1_000_000], "negative times as ts-proto's toTimestamp writes them");
});

test('bytes are copied: a handler may reuse its buffer once it has written it', (t) => {
  const chunk = Buffer.from('abc');
  const bridged = bridgeResponse(FileService.method.readFile.output, { chunk });
  chunk.fill(0);
  t.deepEqual(bridged?.payload.value, Buffer.from('abc'));
});

test('bytes their writer handed over are passed on as they are, in both directions; a Uint8Array as a Buffer of the same memory', (t) => {
  const chunk = handOver(Buffer.from('abc'));
  t.is(bridgeResponse(FileService.method.readFile.output, { chunk })?.payload.value, chunk, 'a response chunk');
  const request = bridgeRequest(
    AssetService.method.uploadAsset.input,
    create(AssetService.method.uploadAsset.input, { payload: { case: 'chunk', value: chunk } }),
    1024,
  ) as { chunk?: Buffer };
  t.is(request.chunk, chunk, 'a request chunk');
  const memory = new Uint8Array([1, 2, 3, 4]);
  const view = handOver(memory.subarray(1, 3));
  const passed = (bridgeResponse(FileService.method.readFile.output, { chunk: view })?.payload.value ?? new Uint8Array()) as Uint8Array;
  t.true(Buffer.isBuffer(passed));
  t.deepEqual([passed.buffer, passed.byteOffset, passed.length], [memory.buffer, 1, 2]);
  // Bytes not handed over are still copied (the test above), whatever else was handed over.
  const kept = Buffer.from('xyz');
  const copied = bridgeResponse(FileService.method.readFile.output, { chunk: kept })?.payload.value;
  t.not(copied, kept);
  t.deepEqual(copied, Buffer.from('xyz'));
});
