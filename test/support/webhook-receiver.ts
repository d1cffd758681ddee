import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request as the receiver got it: headers and the raw body, unparsed. */
export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How the receiver answers the next request: a status (and headers), or not at all. */
export type Answer = { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string } | 'hang';

/** A real node:http receiver on 127.0.0.1 that records every request and answers as told (200 by default). */
export async function startReceiver(port = 0) {
  const received: Received[] = [];
  const answers: Answer[] = [];
  const hanging: ServerResponse[] = [];
  let arrived: (() => void) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      arrived?.();
      const answer = answers.shift() ?? { status: 200, body: 'ok' };
      if (answer === 'hang') return void hanging.push(res);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hooks`,
    port: bound,
    received,
    answerNext: (...next: Answer[]) => void answers.push(...next),
    /** Resolves once `count` requests have arrived in all. */
    until: (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (received.length >= count) resolve();
          else arrived = check;
        };
        check();
      }),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Standard Webhooks 1.0 verification, written here from the specification and
 * not from the code under test: HMAC-SHA256 of `id.timestamp.body` under the
 * base64 key after `whsec_`, compared with each `v1,` signature in the header.
 * Answers which of `secrets` signed.
 */
export function signedBy(received: Received, secrets: readonly string[]): boolean[] {
  const id = String(received.headers['webhook-id']);
  const timestamp = String(received.headers['webhook-timestamp']);
  const signatures = String(received.headers['webhook-signature'])
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version]) => version === 'v1')
    .map(([, signature]) => Buffer.from(signature ?? '', 'base64'));
  return secrets.map((secret) => {
    const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
      .update(`${id}.${timestamp}.${received.body}`)
      .digest();
    return signatures.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected));
  });
}

/**
 * Whether the `standardwebhooks` package (a Standard Webhooks verifier nobody
 * here wrote) accepts `received` under `secret`. It also checks the
 * timestamp against the real clock (5 minutes either way): for tests whose
 * server runs on real time; those on a fake clock use `signedBy`.
 */
export function acceptedByStandardWebhooks(received: Received, secret: string): boolean {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(received.headers)) if (typeof value === 'string') headers[name] = value;
  try {
    new Webhook(secret).verify(received.body, headers);
    return true;
  } catch {
    return false;
  }
}
