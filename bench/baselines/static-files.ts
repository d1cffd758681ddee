// Baseline for file-serve-16kib and file-serve-4mib: node:http +
// fs.createReadStream of the file, with the headers ours sends for a public
// file (type, length, ETag from its sha256, immutable caching, nosniff).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { requiredEnv } from './baseline-auth.js';
import { serveHttp } from './serve-http.js';

/** Files to serve: FILES is a comma-separated list of sizes in bytes; each is written as <size>.bin. */
const dir = requiredEnv('DATA_DIR');
const sizes = requiredEnv('FILES').split(',').map(Number);
const files = new Map<string, { path: string; size: number; etag: string }>();
for (const size of sizes) {
  const path = join(dir, `static-${size}.bin`);
  await writeFile(path, Buffer.alloc(size, 7));
  const bytes = await readFile(path);
  files.set(`/files/${size}.bin`, { path, size: (await stat(path)).size, etag: `"${createHash('sha256').update(bytes).digest('hex')}"` });
}

const server = createServer((req, res) => {
  const file = files.get(req.url ?? '');
  if (!file || req.method !== 'GET') return void res.writeHead(404).end();
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': file.size,
    etag: file.etag,
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
  });
  createReadStream(file.path).pipe(res);
});
serveHttp(server);
