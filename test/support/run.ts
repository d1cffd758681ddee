import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface Run {
  readonly code: number | null;
  /** stdout and stderr together, for failure messages. */
  readonly output: string;
  readonly stdout: string;
}

/** Runs a command to its end, collecting stdout and stderr together. */
export async function run(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code: code, output, stdout };
}
