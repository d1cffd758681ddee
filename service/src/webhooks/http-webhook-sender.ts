import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
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

/**
 * POSTs deliveries with node:http(s). The destination is resolved and
 * checked first (lib's resolveDestination); the socket then connects to the
 * very address checked (the request's `lookup` answers it), so no second
 * resolution can lead elsewhere, and a refused destination opens no socket.
 * Redirects are answers like any other (never followed).
 */
export function createHttpWebhookSender(options: HttpWebhookSenderOptions): HttpWebhookSender {
  const resolve = options.resolve ?? systemResolver;
  const timers = options.timers ?? systemTime;
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  return Object.freeze({
    async send(request: WebhookRequest): Promise<WebhookAnswer> {
      const url = new URL(request.url);
      const target = await resolveDestination(url, options.addresses, resolve);
      return post(url, target, request, url.protocol === 'https:' ? agents.https : agents.http, timers);
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  });
}

function post(url: URL, target: ResolvedAddress, request: WebhookRequest, agent: http.Agent, timers: Timers): Promise<WebhookAnswer> {
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    if (lookupOptions.all) (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      timers.clearTimeout(timer);
      outcome();
    };
    const req = send(url, {
      method: 'POST',
      agent,
      lookup,
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
    });
    const timer = timers.setTimeout(() => {
      finish(() => reject(new Error(`no answer within ${request.timeoutMs} ms`)));
      req.destroy();
    }, request.timeoutMs);
    timer.unref?.();
    req.on('error', (error: NodeJS.ErrnoException) => finish(() => reject(new Error(`could not deliver: ${error.code ?? error.message}`))));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = (): WebhookAnswer => ({
        statusCode: res.statusCode ?? 0,
        retryAfter: headerOf(res.headers['retry-after']),
        body: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8'),
      });
      res.on('data', (chunk: Buffer) => {
        if (size >= RESPONSE_EXCERPT_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        // Enough kept: the rest is not read, and the connection is not reused.
        if (size >= RESPONSE_EXCERPT_BYTES) {
          finish(() => resolve(answer()));
          res.destroy();
        }
      });
      res.on('end', () => finish(() => resolve(answer())));
      res.on('error', () => finish(() => resolve(answer())));
    });
    req.end(request.body);
  });
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
