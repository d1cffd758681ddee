import test from 'ava';
import { Readable } from 'node:stream';
import { handOver, hasFreshChunks, isHandedOver, withFreshChunks } from './handed-over.js';

test('bytes and streams are marked one by one: a view of handed-over bytes is not handed over, nor the memory under them', (t) => {
  const bytes = Buffer.from('abc');
  t.false(isHandedOver(bytes));
  t.is(handOver(bytes), bytes);
  t.true(isHandedOver(bytes));
  t.false(isHandedOver(bytes.subarray(1)));
  t.false(isHandedOver(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)));
  const stream = Readable.from([]);
  t.false(hasFreshChunks(stream));
  t.is(withFreshChunks(stream), stream);
  t.true(hasFreshChunks(stream));
  t.false(hasFreshChunks(Readable.from([])));
});
