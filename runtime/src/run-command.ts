import { isSwitchyardError } from '@switchyard/core';

/** A command line that cannot be understood: the message says what is wrong, and how to call it. Exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Runs an operator command: on failure, one line on stderr and exit code 1
 * (2 for a usage error). The line is our message, and for unexpected failures
 * the driver's reason too, never a stack trace.
 */
export async function runCommand(main: () => Promise<void>): Promise<void> {
  await main().catch((error: unknown) => {
    console.error(explain(error));
    process.exitCode = error instanceof UsageError ? 2 : 1;
  });
}

export function explain(error: unknown): string {
  if (error instanceof UsageError) return error.message;
  if (!isSwitchyardError(error)) return String(error);
  const cause = error.cause instanceof Error && !error.message.includes(error.cause.message) ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
