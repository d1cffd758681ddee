import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A lock across ava's test processes (ava runs several test files at once):
 * files whose assertions are bounded in time (the slow-client suites) and
 * files that load the machine for long stretches (the 200 MiB resumable
 * uploads) take it, so the one does not run beside the other on a small
 * machine. A lock whose holder died is taken over. Resolves with its release.
 */
export async function exclusive(name: string): Promise<() => Promise<void>> {
  const dir = join(tmpdir(), `switchyard-test-lock-${name}`);
  for (;;) {
    try {
      await mkdir(dir);
      await writeFile(join(dir, 'pid'), String(process.pid));
      return () => rm(dir, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(await readFile(join(dir, 'pid'), 'utf8').catch(() => ''));
    if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) await rm(dir, { recursive: true, force: true });
    await sleep(100);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
