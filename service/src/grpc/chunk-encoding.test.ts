import test from 'ava';
import fc from 'fast-check';
import { FileServiceService, ReadFileResponse } from '../gen/switchyard/v1/files.js';
import { serializeReadFileResponse, withFastChunks } from './chunk-encoding.js';

const generated = (response: ReadFileResponse): Buffer => Buffer.from(ReadFileResponse.encode(response).finish());

test('a chunk encodes byte-equal to the generated encoder, at every length class of the varint', (t) => {
  for (const length of [0, 1, 127, 128, 16_383, 16_384, 65_536, 2_097_151, 2_097_152]) {
    const chunk = Buffer.alloc(length, length % 251);
    t.deepEqual(serializeReadFileResponse({ chunk }), generated({ chunk }), `length ${length}`);
  }
});

test('any chunk, info or both encode as the generated encoder does, and decode back', (t) => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 3000 }), fc.boolean(), fc.boolean(), (bytes, withChunk, withInfo) => {
      const response: ReadFileResponse = {
        ...(withChunk ? { chunk: Buffer.from(bytes) } : {}),
        ...(withInfo
          ? {
              info: {
                type: 'image/png',
                size: 42,
                sha256: 'ab',
                uploadedAt: new Date(1000),
                rangeStart: 0,
                rangeEnd: 41,
                visibility: 'public',
                name: 'Übersicht.png',
              },
            }
          : {}),
      };
      const fast = serializeReadFileResponse(response);
      t.deepEqual(fast, generated(response));
      t.deepEqual(ReadFileResponse.decode(fast).chunk, response.chunk);
    }),
  );
});

test("withFastChunks swaps only ReadFile's response encoder", (t) => {
  const fast = withFastChunks(FileServiceService);
  t.is(fast.readFile.responseSerialize, serializeReadFileResponse);
  t.is(fast.readFile.requestDeserialize, FileServiceService.readFile.requestDeserialize);
  t.is(fast.readFile.path, FileServiceService.readFile.path);
});
