// Baseline for transform-miss and transform-div2k-jpeg: node:http reading the
// source image from disk on every request and running the sharp pipeline ours
// runs (EXIF rotation, resize never enlarging, first frame only, the same
// encoder options), answering with the bytes. No cache, no store, no
// concurrency bound: the least an image server can do per request.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import sharp from 'sharp';
import { requiredEnv } from './baseline-auth.js';
import { serveHttp } from './serve-http.js';

/** SOURCES: `name=path,...`; `GET /t/<name>?w=&h=&fit=&format=&q=` transforms that file. */
const sources = new Map(
  requiredEnv('SOURCES')
    .split(',')
    .map((pair) => pair.split('=') as [string, string]),
);
const TYPES: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', avif: 'image/avif' };

async function transform(path: string, query: URLSearchParams): Promise<{ type: string; bytes: Buffer }> {
  const width = query.has('w') ? Number(query.get('w')) : undefined;
  const height = query.has('h') ? Number(query.get('h')) : undefined;
  const fit = (query.get('fit') ?? 'inside') as 'inside';
  const format = query.get('format') ?? 'jpeg';
  const quality = query.has('q') ? Number(query.get('q')) : undefined;
  const source = await readFile(path);
  let pipeline = sharp(source, { limitInputPixels: 50_000_000, failOn: 'error', animated: false, sequentialRead: true })
    .rotate()
    .resize({ width, height, fit, withoutEnlargement: true });
  pipeline =
    format === 'jpeg'
      ? pipeline.jpeg({ quality: quality ?? 80, mozjpeg: true })
      : format === 'png'
        ? pipeline.png({ compressionLevel: 6 })
        : format === 'webp'
          ? pipeline.webp({ quality: quality ?? 80 })
          : pipeline.avif({ quality: quality ?? 50, effort: 2 });
  return { type: TYPES[format] ?? 'application/octet-stream', bytes: await pipeline.toBuffer() };
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname.startsWith('/t/') ? sources.get(url.pathname.slice(3)) : undefined;
  if (req.method !== 'GET' || path === undefined) return void res.writeHead(404).end();
  transform(path, url.searchParams).then(
    ({ type, bytes }) =>
      res
        .writeHead(200, { 'content-type': type, 'content-length': bytes.length, 'cache-control': 'public, max-age=31536000, immutable' })
        .end(bytes),
    (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
  );
});

serveHttp(server);
