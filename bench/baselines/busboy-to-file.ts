// Baseline for the upload benchmark: node:http + busboy streaming the `file`
// part to a file on disk (fsync'd before answering, as a durable store must),
// with the same bearer-token check and size limit as ours.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { createAuth, requiredEnv } from './baseline-auth.js';
import { serveHttp } from './serve-http.js';

const DATA_DIR = requiredEnv('DATA_DIR');
const MAX_UPLOAD_BYTES = Number(process.env.MAX_UPLOAD_BYTES ?? 104_857_600);
const authorize = createAuth(requiredEnv('AUTH_SECRET'));

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Streams the one `file` part to disk; resolves with its size and whether the limit cut it short. */
function receiveFile(req: IncomingMessage, path: string): Promise<{ size: number; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: MAX_UPLOAD_BYTES } });
    let stored: Promise<{ size: number; truncated: boolean }> | undefined;
    parser.on('file', (name, file) => {
      if (name !== 'file') return void file.resume();
      const out = createWriteStream(path, { flush: true });
      stored = pipeline(file, out).then(() => ({ size: out.bytesWritten, truncated: file.truncated === true }));
    });
    parser.on('error', reject);
    parser.on('close', () => {
      if (stored) stored.then(resolve, reject);
      else reject(new Error('no file part'));
    });
    req.pipe(parser);
  });
}

async function upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const auth = await authorize(req, 'assets:write');
  if ('status' in auth) return send(res, auth.status, { code: 'unauthenticated', message: 'refused' });
  const id = randomUUID();
  const { size, truncated } = await receiveFile(req, join(DATA_DIR, id));
  if (truncated) return send(res, 413, { code: 'resource_exhausted', message: 'file too large' });
  send(res, 201, { id, size });
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/assets/upload') return send(res, 404, { code: 'not_found', message: 'no such endpoint' });
  upload(req, res).catch((error: unknown) => send(res, 400, { code: 'invalid_argument', message: String(error) }));
});

serveHttp(server);
