// The connection loop both watches share (route tables, asset changes): a
// Server-Sent Events stream from the gateway over `fetch`, read with
// eventsource-parser, taken for dead after a silence, reconnected with backoff
// over the given gateways, and given up only on an answer retrying cannot fix.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { systemTime, type Timers } from '@switchyard/core/routes';
import type { TokenSource } from './options.js';

export interface EventStreamOptions {
  /** The gateway (`http://127.0.0.1:8080`), or several: after a failure the next one is tried. */
  readonly url: string | readonly string[];
  readonly token: TokenSource;
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** First and longest wait between reconnects; each failure in a row doubles the wait (with jitter). Defaults 250 ms and 10 s. */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** A connection that sends nothing for this long (no event, no heartbeat) is taken for dead. Default 45 s (three server heartbeats). */
  readonly idleTimeoutMs?: number;
  /** Where the idle timeout and the waits between reconnects are scheduled; defaults to the system's timers (tests pass fake ones). */
  readonly timers?: Timers;
}

/** What one watch makes of the stream. */
export interface EventStreamHandlers {
  /** The path and query of the next request (`/v1/routing:watch?sinceRevision=3`), and any headers of its own (`last-event-id`). */
  request(): { readonly path: string; readonly headers?: Readonly<Record<string, string>> };
  /** One event; throwing ends the connection (the watch reconnects). */
  event(message: EventSourceMessage): void;
  /** A connection ended, however (a half-received snapshot is dropped here). */
  ended?(): void;
  /** A value that changes whenever a connection got somewhere: a connection that did resets the backoff. */
  progress(): unknown;
  /** The gateway refused the watch for good (a bad token, a missing scope): the loop has stopped. */
  refused(status: number, message: string): void;
  /** A connection ended for `reason`; the loop reconnects by itself. */
  disconnected(reason: unknown): void;
}

export interface EventStream {
  /** True while an event stream is open. */
  readonly connected: boolean;
  close(): void;
}

/** An answer that retrying cannot fix (401, 403, other 4xx but 408 and 429). */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Connects, feeds every event to `handlers`, and reconnects after a failure, backing off while the gateway is away. */
export function followEventStream(options: EventStreamOptions, handlers: EventStreamHandlers, what: string): EventStream {
  const urls = (typeof options.url === 'string' ? [options.url] : [...options.url]).map((url) => url.replace(/\/+$/, ''));
  if (urls.length === 0) throw new TypeError(`${what} needs at least one url`);
  const fetchFn = options.fetch ?? fetch;
  const minBackoff = options.minBackoffMs ?? 250;
  const maxBackoff = options.maxBackoffMs ?? 10_000;
  const idleMs = options.idleTimeoutMs ?? 45_000;
  const timers = options.timers ?? systemTime;
  const stop = new AbortController();
  let connected = false;

  const connectOnce = async (url: string): Promise<void> => {
    const token = typeof options.token === 'string' ? options.token : await options.token();
    const connection = new AbortController();
    const abort = () => connection.abort();
    stop.signal.addEventListener('abort', abort, { once: true });
    let idle = timers.setTimeout(abort, idleMs);
    try {
      const { path, headers } = handlers.request();
      const response = await fetchFn(`${url}${path}`, {
        headers: { ...headers, authorization: `Bearer ${token}`, accept: 'text/event-stream' },
        signal: connection.signal,
      });
      if (!response.ok || response.body === null) throw await refusal(response, path);
      connected = true;
      const parser = createParser({ onEvent: (message) => handlers.event(message) });
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        timers.clearTimeout(idle);
        idle = timers.setTimeout(abort, idleMs);
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
      throw new Error('the event stream ended');
    } finally {
      timers.clearTimeout(idle);
      stop.signal.removeEventListener('abort', abort);
      connected = false;
      handlers.ended?.();
    }
  };

  void (async () => {
    let failures = 0;
    for (let attempt = 0; !stop.signal.aborted; attempt++) {
      const before = handlers.progress();
      try {
        await connectOnce(urls[attempt % urls.length]!);
      } catch (error) {
        if (stop.signal.aborted) break;
        if (error instanceof Refusal) {
          handlers.refused(error.status, error.message);
          break;
        }
        handlers.disconnected(error);
      }
      // A connection that got somewhere resets the backoff.
      failures = handlers.progress() !== before ? 0 : failures + 1;
      const wait = Math.min(maxBackoff, minBackoff * 2 ** Math.min(failures, 16));
      await delay(timers, wait / 2 + Math.random() * (wait / 2), stop.signal);
    }
  })();

  return {
    get connected() {
      return connected;
    },
    close: () => stop.abort(),
  };
}

/** 401 and 403 (and other 4xx but 408 and 429) will not change by retrying. */
async function refusal(response: Response, path: string): Promise<Error> {
  const text = await response.text().catch(() => '');
  const permanent = response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429;
  const message = `GET ${path.split('?')[0]} answered ${response.status}: ${text.slice(0, 200)}`;
  return permanent ? new Refusal(response.status, message) : new Error(message);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function delay(timers: Timers, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = timers.setTimeout(done, ms);
    function done() {
      timers.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
