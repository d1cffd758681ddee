import { connect } from 'node:net';

/** One response read off a raw socket. */
export interface RawHttpResponse {
  readonly status: number;
  /** Header names lower-cased; a repeated header keeps every value. */
  readonly headers: Record<string, string[]>;
  readonly body: Buffer;
  /** How the exchange ended: a complete response, or the server closing/resetting first. */
  readonly ending: 'complete' | 'closed' | 'reset';
  header(name: string): string | undefined;
}

/**
 * Sends `request` (the whole request, bytes exactly as given: any request
 * line, any header, any framing) on a fresh connection and resolves with the
 * first response once it is complete (by Content-Length, chunked framing, or
 * the server closing). No HTTP library sits in between to normalise a path,
 * refuse a control character or fix up a length. `head` says the request was
 * HEAD (no body follows the headers). Rejects after `timeoutMs`.
 */
export function sendRaw(url: string, request: Buffer, options: { head?: boolean; timeoutMs?: number } = {}): Promise<RawHttpResponse> {
  const { hostname, port } = new URL(url);
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let settled = false;
    const timer = setTimeout(() => finish(undefined, new Error(`no complete response within ${timeoutMs} ms`)), timeoutMs);
    const finish = (ending: RawHttpResponse['ending'] | undefined, error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) return reject(error);
      const parsed = parse(Buffer.concat(chunks), options.head ?? false);
      if (parsed === undefined)
        return reject(
          new Error(
            `the connection ${ending === 'reset' ? 'was reset' : 'closed'} without a response (${Buffer.concat(chunks).length} bytes received)`,
          ),
        );
      resolve({ ...parsed, ending: ending ?? 'complete' });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const parsed = parse(Buffer.concat(chunks), options.head ?? false);
      if (parsed?.complete) finish('complete');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may answer and cut the connection before it took the whole request: the answer counts.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return finish('reset');
      finish(undefined, error);
    });
    socket.on('close', () => finish('closed'));
    socket.on('connect', () => socket.write(request, () => undefined));
  });
}

interface Parsed {
  status: number;
  headers: Record<string, string[]>;
  body: Buffer;
  complete: boolean;
  header(name: string): string | undefined;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

function parse(raw: Buffer, head: boolean): Parsed | undefined {
  let offset = 0;
  // Interim responses (100 Continue) come before the real one.
  for (;;) {
    const end = raw.indexOf(CRLFCRLF, offset);
    if (end === -1) return undefined;
    const lines = raw.subarray(offset, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
    const headers: Record<string, string[]> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      (headers[name] ??= []).push(line.slice(colon + 1).trim());
    }
    const rest = raw.subarray(end + 4);
    if (status >= 100 && status < 200) {
      offset = end + 4;
      continue;
    }
    const header = (name: string): string | undefined => headers[name]?.join(', ');
    const base = { status, headers, header };
    if (head || status === 204 || status === 304) return { ...base, body: Buffer.alloc(0), complete: true };
    const length = header('content-length');
    if (length !== undefined) {
      const size = Number(length);
      return { ...base, body: rest.subarray(0, size), complete: rest.length >= size };
    }
    if (/chunked/i.test(header('transfer-encoding') ?? '')) return { ...base, ...dechunk(rest) };
    return { ...base, body: rest, complete: false };
  }
}

function dechunk(raw: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', offset);
    if (lineEnd === -1) return { body: Buffer.concat(parts), complete: false };
    const size = parseInt(raw.subarray(offset, lineEnd).toString('latin1'), 16);
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    if (raw.length < lineEnd + 2 + size + 2) return { body: Buffer.concat(parts), complete: false };
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}
