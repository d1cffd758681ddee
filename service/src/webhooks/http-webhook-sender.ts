import type { LookupFunction } from 'node:net';
import { Client } from 'undici';
import {
  RESPONSE_EXCERPT_BYTES,
  resolveDestination,
  systemResolver,
  systemTime,
  type AddressPolicy,
  type HostResolver,
  type ResolvedAddress,
  type Timers,
  type WebhookAnswer,
  type WebhookRequest,
  type WebhookSender,
} from '@switchyard/core';

export interface HttpWebhookSenderOptions {
  readonly addresses: AddressPolicy;
  /** How host names are resolved (tests map names to any address). */
  readonly resolve?: HostResolver;
  /** The attempt's timeout runs on these. */
  readonly timers?: Timers;
}

export interface HttpWebhookSender extends WebhookSender {
  /** Ends the kept-alive connections. */
  close(): void;
}

/** Clients kept (one per origin and checked address); past this the least recently used is closed. */
const MAX_CLIENTS = 256;

/**
 * POSTs deliveries with undici's `Client` (why not node:http's: docs/decisions.md,
 * Webhooks). The destination is resolved and checked first (lib's resolveDestination); each
 * client then connects only to the address it was made for (its `lookup`
 * answers that address), so no second resolution can lead elsewhere, and a
 * refused destination opens no socket. Redirects are answers like any other
 * (a `Client` never follows them).
 */
export function createHttpWebhookSender(options: HttpWebhookSenderOptions): HttpWebhookSender {
  const resolve = options.resolve ?? systemResolver;
  const timers = options.timers ?? systemTime;
  const clients = new Map<string, Client>();

  const clientFor = (url: URL, target: ResolvedAddress): Client => {
    const key = `${url.origin} ${target.address}`;
    const kept = clients.get(key);
    clients.delete(key);
    const client =
      kept !== undefined && !kept.closed && !kept.destroyed ? kept : new Client(url.origin, { connect: { lookup: answering(target) } });
    clients.set(key, client);
    if (clients.size > MAX_CLIENTS) {
      const [oldestKey, oldest] = clients.entries().next().value!;
      clients.delete(oldestKey);
      // Its request in flight, if any, finishes first.
      oldest.close().catch(() => undefined);
    }
    return client;
  };

  return Object.freeze({
    async send(request: WebhookRequest): Promise<WebhookAnswer> {
      const url = new URL(request.url);
      const target = await resolveDestination(url, options.addresses, resolve);
      return post(clientFor(url, target), url, request, timers);
    },
    close() {
      for (const client of clients.values()) client.destroy().catch(() => undefined);
      clients.clear();
    },
  });
}

/** net.connect's lookup, answering the address already checked whatever name it is asked. */
function answering(target: ResolvedAddress): LookupFunction {
  return (_host, lookupOptions, callback) => {
    if (lookupOptions.all) (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
}

async function post(client: Client, url: URL, request: WebhookRequest, timers: Timers): Promise<WebhookAnswer> {
  const abort = new AbortController();
  const timer = timers.setTimeout(() => abort.abort(), request.timeoutMs);
  timer.unref?.();
  try {
    const response = await client.request({
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: abort.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        size += chunk.length;
        // Enough kept: the rest is not read, and the connection is not reused.
        if (size >= RESPONSE_EXCERPT_BYTES) {
          response.body.destroy();
          break;
        }
      }
    } catch (error) {
      // The status is the answer; a body cut short keeps what came, unless the time ran out.
      if (abort.signal.aborted) throw error;
    }
    return {
      statusCode: response.statusCode,
      retryAfter: headerOf(response.headers['retry-after']),
      body: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8'),
    };
  } catch (error) {
    if (abort.signal.aborted) throw new Error(`no answer within ${request.timeoutMs} ms`, { cause: error });
    const { code, message } = error as NodeJS.ErrnoException;
    throw new Error(`could not deliver: ${code ?? message}`, { cause: error });
  } finally {
    timers.clearTimeout(timer);
  }
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
