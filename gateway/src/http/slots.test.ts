import test from 'ava';
import { Slots } from './slots.js';

test('slots are taken up to the size, refused beyond it, and freed once per release', (t) => {
  const slots = new Slots(2);
  const a = slots.take();
  const b = slots.take();
  t.truthy(a && b);
  t.is(slots.take(), undefined);
  a!();
  a!();
  t.is(slots.taken, 1, 'a second release of the same slot frees nothing');
  t.truthy(slots.take());
  t.is(slots.take(), undefined);
});
