import { spawn } from 'node:child_process';
import { Console } from 'node:console';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from 'switchyard';
import { ROOT } from './root.js';

export { ROOT };

/** The compiled CLI, as `npm start` and the published package run it (`npm run build` makes it; `npm test` builds first). */
export const CLI_BIN = 'cli/dist/bin.js';

/** Node's arguments for `switchyard <command...>` in a child process: the compiled CLI, never tsx on its sources. */
export function cliArgs(...command: string[]): string[] {
  if (!existsSync(join(ROOT, CLI_BIN))) throw new Error(`${CLI_BIN} is missing: run npm run build first`);
  return [CLI_BIN, ...command];
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `switchyard <command...>` to its end in this process, through the
 * CLI's `main`, with `env` added to this process's environment: its exit code
 * and what it printed. For anything a process alone shows (signals, the exit
 * of the process itself), `spawnCli`. A server command whose configuration
 * is valid would keep serving inside the test's process: in process, only
 * its refusals are tested.
 */
export async function runCli(command: readonly string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const output = new Console({ stdout: collector((text) => (stdout += text)), stderr: collector((text) => (stderr += text)) });
  const code = await main(command, { ...process.env, ...env }, output);
  return { code, stdout, stderr };
}

/** Runs the compiled `switchyard <command...>` as a child process to its end, with `env` added to this process's environment. */
export async function spawnCli(command: readonly string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const child = spawn(process.execPath, cliArgs(...command), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code: code, stdout, stderr };
}

/** A stream that hands each write, as text, to `append`. */
function collector(append: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      append(chunk.toString());
      done();
    },
  });
}
