import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** The repository root: child processes run from here. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Node arguments that run the `switchyard` CLI from its TypeScript sources
 * (tsx, and the packages' `switchyard-source` export condition), so tests see
 * the code as it is now without a build. `npm start` runs the compiled CLI.
 */
export const CLI_NODE_ARGS: readonly string[] = Object.freeze(['--import', 'tsx', '--conditions=switchyard-source', 'cli/src/bin.ts']);

/** `node <args>` for `switchyard <command...>`. */
export function cliArgs(...command: string[]): string[] {
  return [...CLI_NODE_ARGS, ...command];
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `switchyard <command...>` to its end with `env` added to this process's environment. */
export async function runCli(command: readonly string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
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
