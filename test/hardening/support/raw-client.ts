import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A response read off a raw socket: what the server sent before it closed the connection. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Milliseconds from `open()` until the server closed the connection. */
  readonly closedAfterMs: number;
  json<T = Record<string, unknown>>(): T;
}

/**
 * A client that speaks HTTP/1.1 by hand over node:net, for what no HTTP
 * library will do: headers sent a byte at a time, a body that stalls, a
 * connection held open and silent.
 */
export class RawClient {
  readonly socket: Socket;
  readonly #started = performance.now();
  readonly #received: Buffer[] = [];
  readonly #closed: Promise<number>;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => this.#received.push(chunk));
    // A reset after the answer is part of what is being tested, not a failure of the test.
    socket.on('error', () => undefined);
    // Not events.once: it rejects on an 'error' (a reset while the client is still writing) before 'close', which always follows.
    this.#closed = new Promise((resolve) => socket.once('close', () => resolve(performance.now() - this.#started)));
  }

  static async open(url: string): Promise<RawClient> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    await once(socket, 'connect');
    return new RawClient(socket);
  }

  /** Writes unless the server has closed the connection; resolves false once it has. */
  async write(data: string | Buffer): Promise<boolean> {
    if (this.socket.destroyed || !this.socket.writable) return false;
    return new Promise((resolve) => this.socket.write(data, (error) => resolve(error == null)));
  }

  /** Sends `data` in pieces of `pieceBytes`, one every `everyMs`, until done or the server closes. Resolves with the bytes sent. */
  async trickle(data: string | Buffer, pieceBytes: number, everyMs: number): Promise<number> {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
    let sent = 0;
    while (sent < bytes.length) {
      if (!(await this.write(bytes.subarray(sent, sent + pieceBytes)))) break;
      sent += Math.min(pieceBytes, bytes.length - sent);
      if (sent < bytes.length) await sleep(everyMs);
    }
    return sent;
  }

  /** Whether the server has closed the connection. */
  get closed(): boolean {
    return this.socket.destroyed || this.socket.readableEnded;
  }

  /** Waits (at most `timeoutMs`) for the server to close the connection, and parses what it sent. */
  async answer(timeoutMs = 10_000): Promise<RawAnswer> {
    const timer = sleep(timeoutMs).then(() => {
      throw new Error(`the server kept the connection open for more than ${timeoutMs} ms`);
    });
    const closedAfterMs = await Promise.race([this.#closed, timer]);
    return parse(Buffer.concat(this.#received), closedAfterMs);
  }

  close(): void {
    this.socket.destroy();
  }
}

function parse(raw: Buffer, closedAfterMs: number): RawAnswer {
  const text = raw.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = split === -1 ? '' : text.slice(split + 4);
  const length = Number(headers['content-length']);
  if (Number.isInteger(length)) body = Buffer.from(body).subarray(0, length).toString('utf8');
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
    headers,
    body,
    closedAfterMs,
    json: <T>() => JSON.parse(body) as T,
  };
}

/**
 * The head of a multipart upload request (`Connection: close`, so the server
 * closes once it has answered) and the opening of its file part, with a body
 * length of `declaredBytes`.
 */
export function uploadHead(
  path: string,
  authorization: string,
  boundary: string,
  declaredBytes: number,
): { head: string; partHead: string } {
  const partHead = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const head =
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: ${authorization}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${declaredBytes}\r\n\r\n`;
  return { head, partHead };
}

/** The whole multipart body of one file part. */
export function uploadBody(boundary: string, bytes: Buffer): Buffer {
  const { partHead } = uploadHead('/', '', boundary, 0);
  return Buffer.concat([Buffer.from(partHead), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]);
}
