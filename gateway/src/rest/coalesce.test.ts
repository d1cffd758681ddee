import test from 'ava';
import { isHandedOver } from '@switchyard/runtime';
import { coalesce } from './coalesce.js';

async function collect(pieces: Uint8Array[], target: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const chunk of coalesce(
    (async function* () {
      yield* pieces;
    })(),
    target,
  ))
    out.push(chunk);
  return out;
}

test('small pieces are joined into chunks of at least the target, the rest flushed at the end; bytes unchanged', async (t) => {
  const pieces = Array.from({ length: 10 }, (_, i) => Buffer.alloc(3, i));
  const chunks = await collect(pieces, 8);
  t.deepEqual(
    chunks.map((chunk) => chunk.byteLength),
    [9, 9, 9, 3],
  );
  t.deepEqual(Buffer.concat(chunks), Buffer.concat(pieces));
  t.deepEqual(chunks.map(isHandedOver), [true, true, true, false], 'a joined chunk is its own: handed over; the last piece, alone, is not');
});

test('a piece at or over the target passes alone; empty pieces and empty input yield nothing', async (t) => {
  const big = Buffer.alloc(20, 7);
  const [alone] = await collect([Buffer.alloc(0), big, Buffer.alloc(0)], 8);
  t.is(alone, big);
  t.false(isHandedOver(big), "a piece passed on alone is still its source's, not handed over");
  t.deepEqual(await collect([], 8), []);
});

test("pieces held longer than maxHoldMs go out below the target, so a slow client's bytes keep flowing", async (t) => {
  let clock = 0;
  async function* slowly() {
    for (let i = 0; i < 4; i++) {
      clock += 400;
      yield Buffer.alloc(3, i);
    }
  }
  const chunks: Uint8Array[] = [];
  for await (const chunk of coalesce(slowly(), 1024, { maxHoldMs: 1000, now: () => clock })) chunks.push(chunk);
  // Nothing sent since t=0: at t=1200 the third piece sends three; the fourth waits for the end.
  t.deepEqual(
    chunks.map((chunk) => chunk.byteLength),
    [9, 3],
  );
  clock = 0;
  const slower: Uint8Array[] = [];
  async function* slower_() {
    for (let i = 0; i < 3; i++) {
      clock += 1500;
      yield Buffer.alloc(2, i);
    }
  }
  for await (const chunk of coalesce(slower_(), 1024, { maxHoldMs: 1000, now: () => clock })) slower.push(chunk);
  t.deepEqual(
    slower.map((chunk) => chunk.byteLength),
    [2, 2, 2],
  );
});

test('the hold is measured from the last send: a piece at 999 ms is held, the one at 1,000 ms sends what is held', async (t) => {
  let clock = 0;
  const sent: { at: number; bytes: number }[] = [];
  async function* pieces() {
    for (const at of [500, 999, 1_000, 1_999, 2_000]) {
      clock = at;
      yield Buffer.alloc(1);
    }
  }
  for await (const chunk of coalesce(pieces(), 1024, { maxHoldMs: 1_000, now: () => clock }))
    sent.push({ at: clock, bytes: chunk.byteLength });
  t.deepEqual(sent, [
    { at: 1_000, bytes: 3 },
    { at: 2_000, bytes: 2 },
  ]);
});
