import { eventually } from './eventually.js';

/** Polls (every 100 ms, up to 60 s: a hang, not a slow start) until a program that is starting answers `url`; `output` is shown when it never does. */
export async function firstAnswer(url: string, init: RequestInit, output: () => string): Promise<Response> {
  try {
    return await eventually(() => fetch(url, init), { timeout: 60_000, interval: 100, message: `${url} answering` });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${output()}`, { cause: error });
  }
}
