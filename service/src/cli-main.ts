import { isSwitchyardError } from '../../lib/src/errors.js';

/**
 * Runs an operator command: on failure, one line on stderr and exit code 1.
 * The line is our message, and for unexpected failures the driver's reason
 * too, never a stack trace.
 */
export async function runCommand(main: () => Promise<void>): Promise<void> {
  await main().catch((error: unknown) => {
    console.error(explain(error));
    process.exitCode = 1;
  });
}

export function explain(error: unknown): string {
  if (!isSwitchyardError(error)) return String(error);
  const cause = error.cause instanceof Error && !error.message.includes(error.cause.message) ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
