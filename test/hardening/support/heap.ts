import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// The stack under test runs in this process: with a real collector at hand, "memory back to its baseline" is measurable exactly.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export interface MemorySample {
  /** Bytes of live JS heap after full collections. */
  readonly heapUsed: number;
  readonly rss: number;
}

/** Memory after full collections (twice, with a turn of the event loop between, so finalisers and weak refs settle). */
export async function memoryAfterGc(): Promise<MemorySample> {
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
/** A difference, signed. */
export const deltaMib = (bytes: number): string => `${bytes >= 0 ? '+' : ''}${mib(bytes)}`;
