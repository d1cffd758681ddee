// Baseline for poster-frame-miss: node:http running ffmpeg directly on the
// video file for every request (`-ss <t> -i <file> -frames:v 1`, a JPEG to
// stdout) and answering with its bytes, as a script serving posters would.
// ffmpeg with its defaults (its own threads); no cache, no store, no bound.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { requiredEnv } from './baseline-auth.js';
import { serveHttp } from './serve-http.js';

const VIDEO = requiredEnv('VIDEO');
const FFMPEG = process.env['FFMPEG_PATH'] || 'ffmpeg';

function frame(ms: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      FFMPEG,
      [
        '-nostdin',
        '-loglevel',
        'error',
        '-ss',
        (ms / 1000).toFixed(3),
        '-i',
        VIDEO,
        '-frames:v',
        '1',
        '-f',
        'image2pipe',
        '-c:v',
        'mjpeg',
        'pipe:1',
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg exited ${code}`))));
  });
}

/** `GET /frame?ms=<n>`: the JPEG of the frame at n ms. */
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method !== 'GET' || url.pathname !== '/frame') return void res.writeHead(404).end();
  frame(Number(url.searchParams.get('ms') ?? 0)).then(
    (bytes) => res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length }).end(bytes),
    (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
  );
});

serveHttp(server);
