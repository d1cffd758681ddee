import test from 'ava';
import { Readable } from 'node:stream';
import type { BlobInfo, BlobStore } from '../ports/blob-store.js';
import { alice, memoryAfterGc, setup } from './test-support.js';

const TOTAL = 200 * 1024 * 1024;
const CHUNK = 64 * 1024;
const SAMPLE_EVERY = 8 * 1024 * 1024;
const BUDGET = 32 * 1024 * 1024;

/** Live memory: buffers outside the V8 heap count too, or buffering chunks would go unseen. */
const liveBytes = (): number => memoryAfterGc().live;

/** Takes bytes and throws them away, measuring memory as they pass. */
class DiscardingBlobStore implements BlobStore {
  received = 0;
  peak = 0;
  async put(_key: string, body: Readable): Promise<void> {
    let nextSample = 0;
    for await (const chunk of body) {
      this.received += (chunk as Buffer).length;
      if (this.received >= nextSample) {
        this.peak = Math.max(this.peak, liveBytes());
        nextSample += SAMPLE_EVERY;
      }
    }
  }
  async get(): Promise<Readable | undefined> {
    return undefined;
  }
  async stat(): Promise<BlobInfo | undefined> {
    return undefined;
  }
  async delete(): Promise<void> {}
  async *list(): AsyncIterable<BlobInfo> {}
  async check(): Promise<void> {}
}

/** 200 MiB produced lazily, a fresh buffer per chunk (as a network stream would deliver them). */
function hugeBody(): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= TOTAL) return void this.push(null);
      this.push(Buffer.alloc(CHUNK, sent & 0xff));
      sent += CHUNK;
    },
  });
}

test('a 200 MiB upload streams through in constant memory', async (t) => {
  const blobStore = new DiscardingBlobStore();
  const { service } = setup({ blobStore, maxUploadBytes: TOTAL });
  const baseline = liveBytes();
  const asset = await service.upload(alice, { body: hugeBody() });
  t.is(asset.size, TOTAL);
  t.is(blobStore.received, TOTAL);
  const growth = blobStore.peak - baseline;
  t.log(`peak growth ${(growth / 1024 / 1024).toFixed(1)} MiB`);
  t.true(growth < BUDGET, `live memory grew by ${growth} bytes while streaming`);
});
