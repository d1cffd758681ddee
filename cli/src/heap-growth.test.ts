import test from 'ava';
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from './heap-growth.js';

test('the server process grows its heap by a fixed factor', (t) => {
  t.is(heapGrowthFlag([]), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  t.is(heapGrowthFlag(['--enable-source-maps', '--max-old-space-size=512']), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
});

test("a factor chosen on node's command line wins, in either spelling", (t) => {
  t.is(heapGrowthFlag(['--heap-growing-percent=0']), undefined);
  t.is(heapGrowthFlag(['--heap_growing_percent=50']), undefined);
  t.is(heapGrowthFlag(['--heap-growing-percent', '30']), undefined);
  // Another flag that merely begins alike is not the same choice.
  t.is(heapGrowthFlag(['--heap-growing-percentage=5']), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
});
