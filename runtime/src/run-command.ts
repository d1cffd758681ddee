import { isSwitchyardError } from '@switchyard/core';

/**
 * Where an operator command prints: `log` to its stdout, `error` to its
 * stderr. The global `console` in the CLI; a `new Console(...)` over buffers
 * when a test runs a command in process.
 */
export type CommandOutput = Pick<Console, 'log' | 'error'>;

/** An operator command: its arguments, the environment read once at start, where it prints. */
export type Command = (args: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput) => Promise<void>;

/** A command line that cannot be understood: the message says what is wrong, and how to call it. Exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A command's outcome as an exit code other than 0 (`routes diff`: 2 when
 * there are changes), or a failure with a code of its own; the message, if
 * any, goes to stderr.
 */
export class CommandExit extends Error {
  override readonly name = 'CommandExit';
  constructor(
    readonly code: number,
    message = '',
  ) {
    super(message);
  }
}

/**
 * Runs an operator command and resolves with its exit code: 0, or on failure
 * 1 (2 for a usage error) after one line on `output`'s stderr. The line is
 * our message, and for unexpected failures the driver's reason too, never a
 * stack trace.
 */
export async function runCommand(main: () => Promise<void>, output: CommandOutput): Promise<number> {
  try {
    await main();
    return 0;
  } catch (error) {
    if (error instanceof CommandExit) {
      if (error.message) output.error(error.message);
      return error.code;
    }
    output.error(explain(error));
    return error instanceof UsageError ? 2 : 1;
  }
}

export function explain(error: unknown): string {
  if (error instanceof UsageError) return error.message;
  if (!isSwitchyardError(error)) return String(error);
  const cause = error.cause instanceof Error && !error.message.includes(error.cause.message) ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
