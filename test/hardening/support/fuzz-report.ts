import type fc from 'fast-check';

/**
 * A failed property in a few readable lines: the shrunk failure's own message
 * (which names the request), and the seed and path that replay it
 * (`FUZZ_SEED=<seed>`). fast-check's own report prints every value of the
 * counterexample, megabytes of bytes for a hostile body.
 */
export function failureReport<T>(details: fc.RunDetails<T>): string {
  const error = details.errorInstance;
  const message = error instanceof Error ? error.message : String(error);
  return `${message}\n(seed ${details.seed}, path ${JSON.stringify(details.counterexamplePath)}, shrunk ${details.numShrinks} times; replay with FUZZ_SEED=${details.seed})`;
}
