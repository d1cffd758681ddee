import { Code, ConnectError } from '@switchyard/client';

/** The code a call failed with, or undefined when it succeeded. */
export async function codeOf(promise: Promise<unknown>): Promise<Code | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return ConnectError.from(error).code;
  }
}
