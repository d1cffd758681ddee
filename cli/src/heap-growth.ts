// Tuned for speed: the server's process grows V8's old generation by a fixed
// factor after each full GC instead of V8's own. Justified by
// read-p99-during-upload (bench/hand-written-parts.md#heap-growth): the GET
// p99 during a 1 GiB upload went from 4.3-4.7 to 1.6-1.9 times the same GETs
// idle (alone), and a 64 MiB upload from 0.445 to 0.12-0.13 s of user CPU.
//
// Why: when a full GC is fast next to how quickly the old generation fills,
// V8 sets the next limit close above what survived (factor 1.2), plus the
// young generation's size. Once a long upload has grown the young generation
// to its 16 MB semi-spaces, that headroom (~27 MB on our ~55 MB heap) is less
// than the young generation V8 wants free before it, so incremental marking
// starts again as soon as a full GC ends: one every 40-100 ms, with marking
// steps of 4-12 ms on the event loop, for as long as the upload lasts
// (`--trace-gc-verbose`: "factor 1.2 based on mu=0.970, speed_ratio=224").
// Twice the survivors leaves room for both.
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to twice what survived the last full GC (V8's own factor ranges 1.1 to 4). */
export const HEAP_GROWING_PERCENT = 100;

/** The V8 flag the process sets, or undefined when its command line (`node --heap-growing-percent=N`) chose one. */
export function heapGrowthFlag(execArgv: readonly string[]): string | undefined {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Sets V8's heap growing factor for this process, unless its command line already chose one. */
export function fixHeapGrowth(execArgv: readonly string[]): void {
  const flag = heapGrowthFlag(execArgv);
  if (flag !== undefined) setFlagsFromString(flag);
}
