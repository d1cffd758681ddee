import test from 'ava';
import { createUlidSource, isId } from './ids.js';

test('ulid ids are well formed, unique and in creation order, past the random pool refilling', (t) => {
  const ids = createUlidSource();
  // 16 random characters per new millisecond: 5,000 ids draw the 4 KiB pool many times over.
  const made = Array.from({ length: 5_000 }, () => ids.next('route'));
  t.true(made.every((id) => isId('route', id)));
  t.is(new Set(made).size, made.length);
  t.deepEqual([...made].sort(), made);
});

test('the random part uses every character of the alphabet about equally often', (t) => {
  const ids = createUlidSource();
  const counts = new Map<string, number>();
  let now = Date.now();
  for (let i = 0; i < 2_000; i++) {
    // A new millisecond each time, so every id draws fresh randomness (no monotonic increment).
    const id = withTime(++now, () => ids.next('asset'));
    for (const char of id.slice(-16)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  t.is(counts.size, 32);
  // 32,000 draws over 32 characters: 1,000 each expected; ±25 % is far outside chance.
  for (const count of counts.values()) t.true(count > 750 && count < 1250, String(count));
});

function withTime<T>(time: number, run: () => T): T {
  const real = Date.now;
  Date.now = () => time;
  try {
    return run();
  } finally {
    Date.now = real;
  }
}
