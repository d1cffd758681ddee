import { request } from 'node:http';
import { FIXTURES_DIR, type FixtureName } from './fixtures.js';
import { readFile } from 'node:fs/promises';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
  /** The JSON body, for error and API responses. */
  json<T = Record<string, unknown>>(): T;
}

/**
 * One HTTP request through node:http with a body written exactly as given,
 * for bodies fetch would never send (no boundary, truncated forms). Resolves
 * with the response even when the server answered before reading all of the
 * body and the rest could not be written.
 */
export function rawRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string | number>;
    body?: Buffer | string /** Sent verbatim instead of url's path. */;
    path?: string;
  },
): Promise<RawResponse> {
  const { hostname, port, pathname, search } = new URL(url);
  const target = {
    host: hostname,
    port,
    path: options.path ?? `${pathname}${search}`,
    method: options.method ?? 'POST',
    headers: options.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request(target, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: <T>() => JSON.parse(body.toString('utf8')) as T });
      });
      res.on('error', reject);
    });
    // An early answer can cut off the rest of the body; the answer is what counts.
    req.on('error', (error) => setImmediate(() => reject(error)));
    req.end(options.body);
  });
}

export interface FormFile {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly filename: string;
  readonly type?: string;
}

export async function fixtureFile(name: FixtureName): Promise<FormFile> {
  return { bytes: new Uint8Array(await readFile(FIXTURES_DIR + name)), filename: name };
}

/** A real multipart body built by FormData, with fields in the order given. */
export function form(parts: ReadonlyArray<readonly [string, string | FormFile]>): FormData {
  const data = new FormData();
  for (const [name, value] of parts) {
    if (typeof value === 'string') data.append(name, value);
    else data.append(name, new Blob([value.bytes], { type: value.type ?? 'application/octet-stream' }), value.filename);
  }
  return data;
}

/** A multipart body by hand, part by part (`file` parts when a filename is given). */
export function multipartBody(
  boundary: string,
  parts: ReadonlyArray<{ name: string; filename?: string; type?: string; body: string | Buffer }>,
  close = true,
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.type ?? (part.filename === undefined ? undefined : 'application/octet-stream');
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`));
    chunks.push(Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body));
    chunks.push(Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
