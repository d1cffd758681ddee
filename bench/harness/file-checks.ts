import { request } from 'node:http';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/**
 * A GET with exactly these headers. Not fetch(): fetch adds `Cache-Control:
 * no-cache` to any request that sets If-None-Match itself, and servers built
 * on `fresh` (@fastify/static, serve-static) then answer 200 where the load
 * (autocannon, no such header) gets 304.
 */
function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Before a file-serving load, each server must show it does the work the load
 * is about: the whole file with an ETag, a byte range as 206, and 304 for its
 * own ETag. Resolves with that ETag (the 304 load sends it back).
 */
export async function checkFileServing(url: string, expected: Uint8Array): Promise<{ etag: string }> {
  const whole = await get(url);
  const etag = whole.headers.etag;
  if (whole.status !== 200 || typeof etag !== 'string') throw new Error(`GET ${url}: ${whole.status}, ETag ${String(etag)}`);
  if (!whole.body.equals(expected)) throw new Error(`GET ${url}: ${whole.body.length} bytes, not the ${expected.length} expected`);
  const part = await get(url, { range: 'bytes=100-199' });
  if (part.status !== 206 || part.body.length !== 100 || part.headers['content-range'] !== `bytes 100-199/${expected.length}`) {
    throw new Error(
      `GET ${url} with Range: ${part.status}, ${part.body.length} bytes, Content-Range ${String(part.headers['content-range'])}`,
    );
  }
  const revalidated = await get(url, { 'if-none-match': etag });
  if (revalidated.status !== 304) throw new Error(`GET ${url} with If-None-Match ${etag}: ${revalidated.status}, not 304`);
  return { etag };
}
