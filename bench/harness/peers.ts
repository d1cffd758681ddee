import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ChildServer } from './child-server.js';

const require = createRequire(import.meta.url);

/** The installed version of a package (resolved from the repository root, or from inside another package: ipx's own sharp). */
export function packageVersion(name: string, from?: string): string {
  const resolver = from === undefined ? require : createRequire(require.resolve(from));
  let dir = dirname(resolver.resolve(name));
  // Walk up from the entry point to the package's own package.json.
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    } catch {
      // No package.json here; keep walking.
    }
    const up = dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

/** What a peer is, how it is set up and what it leaves out that ours does: recorded beside every figure against it. */
export interface PeerNotes {
  readonly peer: string;
  readonly settings: string;
  readonly skips: readonly string[];
}

/** Starts servers at once; if any fails, stops the others before rethrowing. */
export async function startAll<T extends readonly Promise<ChildServer>[]>(
  starts: readonly [...T],
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed === undefined)
    return settled.map((s) => (s as PromiseFulfilledResult<ChildServer>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
  await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
  throw failed.reason;
}
