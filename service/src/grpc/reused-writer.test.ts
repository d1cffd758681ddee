import test from 'ava';
import fc from 'fast-check';
import type { DescService } from '@bufbuild/protobuf';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { AssetService, RouteService, UploadService } from '@switchyard/proto';
import { AssetServiceService } from '../gen/switchyard/v1/assets.js';
import { RouteServiceService } from '../gen/switchyard/v1/routes.js';
import { UploadServiceService } from '../gen/switchyard/v1/uploads.js';
import { messageOf } from '../in-process/message-arbitraries.test-support.js';
import { withReusedWriter } from './reused-writer.js';

/** The services whose replies take the reused writer (FileService's one reply type has its own encoder, chunk-encoding.ts). */
const services: [DescService, ServiceDefinition][] = [
  [AssetService, AssetServiceService],
  [RouteService, RouteServiceService],
  [UploadService, UploadServiceService],
];

/** Every method: the generated definition's entry, the reused writer's, and its response type. */
const methods = services.flatMap(([service, generated]) => {
  const reusing = withReusedWriter(generated, service);
  return Object.entries(generated).map(([name, method]: [string, MethodDefinition<unknown, unknown>]) => ({
    name: `${service.name}.${name}`,
    generated: method,
    reusing: reusing[name]!,
    output: service.methods.find((candidate) => method.path === `/${service.typeName}/${candidate.name}`)!.output,
  }));
});

/** The generated serializer's answer: its bytes, or that it refused. */
function generatedBytes(serialize: (message: unknown) => Buffer, message: unknown): Buffer | 'refused' {
  try {
    return serialize(message);
  } catch {
    return 'refused';
  }
}

test("every method's responses take the reused writer (each response type is found)", (t) => {
  t.true(methods.length > 15);
  for (const method of methods) t.not(method.reusing.responseSerialize, method.generated.responseSerialize, method.name);
});

test("every response type encodes to the generated serializer's bytes, one reply after another", (t) => {
  for (const method of methods) {
    fc.assert(
      fc.property(fc.array(messageOf('ts-proto', method.output, false), { minLength: 2, maxLength: 4 }), (messages) => {
        const ours = messages.map((message) => method.reusing.responseSerialize(message));
        // Compared after all were encoded: a later reply must not change an earlier one's bytes.
        ours.forEach((bytes, i) => t.deepEqual(bytes, method.generated.responseSerialize(messages[i]), method.name));
      }),
      { numRuns: 50 },
    );
  }
});

test('a value the encoder refuses is refused as by the generated serializer, and the next reply is still right', (t) => {
  for (const method of methods) {
    fc.assert(
      fc.property(messageOf('ts-proto', method.output, true), messageOf('ts-proto', method.output, false), (hostile, valid) => {
        const expected = generatedBytes(method.generated.responseSerialize, hostile);
        if (expected === 'refused') t.throws(() => method.reusing.responseSerialize(hostile), undefined, method.name);
        else t.deepEqual(method.reusing.responseSerialize(hostile), expected, method.name);
        t.deepEqual(method.reusing.responseSerialize(valid), method.generated.responseSerialize(valid), `${method.name}: after it`);
      }),
      { numRuns: 50 },
    );
  }
});

test('a reply past 64 KiB is encoded right and the replies after it too', (t) => {
  const method = methods.find((candidate) => candidate.name === 'AssetService.listAssets')!;
  const asset = {
    id: 'as_1',
    type: 'image/png',
    size: 68,
    url: 'http://x/files/as_1/bl_1.png',
    uploadedAt: new Date(0),
    label: 'l'.repeat(1000),
    sha256: 'f'.repeat(64),
    visibility: 'public',
  };
  const big = { assets: Array.from({ length: 100 }, () => asset), nextPageToken: '' };
  const small = { assets: [asset], nextPageToken: 'next' };
  for (const message of [big, small, big, small])
    t.deepEqual(method.reusing.responseSerialize(message), method.generated.responseSerialize(message));
});
