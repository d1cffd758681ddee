/** Polls (every 100 ms, up to 30 s) until a program that is starting answers `url`; `output` is shown when it never does. */
export async function firstAnswer(url: string, init: RequestInit, output: () => string): Promise<Response> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await fetch(url, init);
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${url} never answered: ${String(error)}\n${output()}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
