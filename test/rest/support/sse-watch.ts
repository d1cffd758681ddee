import { eventually } from '../../support/eventually.js';

/** Generous: it catches an event that never comes; how soon one comes is measured in bench/. */
export const EVENT_DEADLINE_MS = 20_000;

/** A Server-Sent Events watch read by hand: every event in the order it arrived. */
export class SseWatch {
  readonly events: { event: string; id: string | undefined; data: Record<string, unknown> }[] = [];
  readonly #abort = new AbortController();
  readonly done: Promise<void>;
  status = 0;

  /** Watches `url` (a gateway's `/v1/routing:watch` or `/v1/assets:watch`, with its query). */
  constructor(url: string, headers: Record<string, string>) {
    this.done = (async () => {
      const response = await fetch(url, {
        headers: { ...headers, accept: 'text/event-stream' },
        signal: this.#abort.signal,
      });
      this.status = response.status;
      if (!response.ok || !response.body) return;
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const field = (name: string): string | undefined => [...block.matchAll(/^(\w+): ?(.*)$/gm)].find((m) => m[1] === name)?.[2];
            const event = field('event');
            const data = field('data');
            if (event && data) this.events.push({ event, id: field('id'), data: JSON.parse(data) as Record<string, unknown> });
          }
        }
      } catch {
        // Closed by us.
      }
    })();
  }

  /** Resolves with the first event (from index `from`) that `matches`; fails after a generous deadline, listing what came. */
  waitFor(matches: (event: SseWatch['events'][number]) => boolean, from = 0): Promise<SseWatch['events'][number]> {
    return eventually(
      () => {
        const found = this.events.slice(from).find(matches);
        if (!found) throw new Error(`got ${this.events.map((e) => `${e.event}@${String(e.data['revision'])}`).join(' ')}`);
        return found;
      },
      { timeout: EVENT_DEADLINE_MS, interval: 5, message: 'the awaited event' },
    );
  }

  close(): Promise<void> {
    this.#abort.abort();
    return this.done;
  }
}
