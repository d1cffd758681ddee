import test from 'ava';
import { readableSize, tooLarge } from './byte-meter.js';

test('sizes read as people say them', (t) => {
  t.is(readableSize(0), '0 bytes');
  t.is(readableSize(1023), '1023 bytes');
  t.is(readableSize(1024), '1 KiB');
  t.is(readableSize(1536), '1.5 KiB');
  t.is(readableSize(1024 * 1024), '1 MiB');
  t.is(readableSize(104_857_600), '100 MiB');
  t.is(readableSize(2 ** 50), '1024 TiB');
});

test("a refusal for size names the workspace's limit in bytes and readably, and the field", (t) => {
  const error = tooLarge(1_048_576);
  t.is(error.code, 'resource_exhausted');
  t.is(error.message, "the file is larger than this workspace's upload limit of 1048576 bytes (1 MiB); nothing was stored");
  t.deepEqual(error.details, [{ field: 'file', reason: 'larger than 1048576 bytes' }]);
  t.is(tooLarge(10, 'length').details[0]?.field, 'length');
});
