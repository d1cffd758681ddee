import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * A command left running in its own process group (`npx` or `npm` and the node
 * it starts), so that stopping it stops both, as Ctrl-C in a terminal would.
 */
export class Background {
  #child: ChildProcess;
  #output = '';
  readonly #exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(argv: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    const [command, ...args] = argv;
    if (command === undefined) throw new Error('no command to run');
    this.#child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.#child.stdout!.on('data', (chunk: Buffer) => (this.#output += chunk.toString()));
    this.#child.stderr!.on('data', (chunk: Buffer) => (this.#output += chunk.toString()));
    this.#exited = once(this.#child, 'exit').then(([code, signal]) => ({
      code: code as number | null,
      signal: signal as NodeJS.Signals | null,
    }));
  }

  /** stdout and stderr so far, for failure messages. */
  get output(): string {
    return this.#output;
  }

  /** The first match of `pattern` in the output, once it has printed it; rejects if the command exits first. */
  async waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    for (;;) {
      const match = pattern.exec(this.#output);
      if (match !== null) return match;
      if (this.#child.exitCode !== null || this.#child.signalCode !== null)
        throw new Error(`exited (${this.#child.exitCode ?? this.#child.signalCode}) before printing ${pattern}:\n${this.#output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Sends `signal` to the whole group (unless it has ended); resolves with how the command ended. */
  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) process.kill(-this.#child.pid!, signal);
    return this.#exited;
  }
}
