import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cpuNotes, type LoadStats, type Side } from '../harness/alternate.js';
import { checkFileServing } from '../harness/file-checks.js';
import { compareHttp } from '../harness/http-load.js';
import { packageVersion, startAll, type PeerNotes } from '../harness/peers.js';
import { result, type BenchResult } from '../harness/results.js';
import { createWorkspace, startBaseline, startOurs } from '../harness/servers.js';
import { SIZES, uploadedUrl } from './file-serve.js';

/** The bytes file-serve uploads through ours (`uploadedUrl`): the peers serve the same ones, from a folder. */
export function fileBytes(size: number): Uint8Array {
  return new Uint8Array(size).fill(7);
}

/** Work every file peer skips that ours does on each request. */
export const FILE_PEER_SKIPS = [
  'no database lookup (the URL path is the file; ours finds the asset and its blob in SQLite)',
  'no visibility or signed-URL check',
  'no metrics (ours records every request: METRICS_PORT=0 in the bench)',
  'no CORS, request id or safety headers (ours: nosniff, CSP sandbox, Content-Disposition)',
  'weak ETag from size and mtime (ours: the stored sha256)',
];

const PEERS = {
  '@fastify/static': {
    file: 'fastify-static-server.ts',
    suffix: '',
    notes: (): PeerNotes => ({
      peer: `@fastify/static ${packageVersion('@fastify/static')} on fastify ${packageVersion('fastify')}`,
      settings:
        "README: root + prefix '/files/'; maxAge '30d' and immutable: true (README, Managing cache-control headers); ETag, Last-Modified, Range on (defaults); logger: true (README, Usage: two log lines a request, as ours writes)",
      skips: FILE_PEER_SKIPS,
    }),
  },
  'serve-static': {
    file: 'serve-static-server.ts',
    suffix: '-serve-static',
    notes: (): PeerNotes => ({
      peer: `serve-static ${packageVersion('serve-static')} on node:http`,
      settings:
        'README (vanilla node.js http server): maxAge \'30d\', immutable: true, fallthrough: false ("short-circuiting 404s for less overhead"), index: false; ETag, Last-Modified, Range on (defaults)',
      skips: [...FILE_PEER_SKIPS, 'no access log (ours writes two lines a request)'],
    }),
  },
} as const;

type PeerName = keyof typeof PEERS;

/**
 * peer-file-serve-16kib, -4mib and -304: ours' public file urls (file-serve's
 * load: the same bytes and sizes, autocannon, 10 connections, alternating
 * rounds) against @fastify/static serving the same bytes from a folder, and
 * the same against serve-static 2 as a second reference
 * (`peer-file-serve-*-serve-static`). 304: every request carries
 * If-None-Match with the server's own ETag of the 16 KiB file.
 */
export async function peerFileServe(): Promise<BenchResult[]> {
  const ws = await createWorkspace('peer-file-serve');
  try {
    const peerDir = join(ws.dir, 'peer-files');
    await mkdir(peerDir, { recursive: true });
    for (const { bytes } of SIZES) await writeFile(join(peerDir, `${bytes}.bin`), fileBytes(bytes));
    const [ours, fastifyStatic, serveStatic] = await startAll([
      startOurs(ws),
      startBaseline(ws, PEERS['@fastify/static'].file, { PEER_FILES_DIR: peerDir }),
      startBaseline(ws, PEERS['serve-static'].file, { PEER_FILES_DIR: peerDir }),
    ]);
    const peers: Record<PeerName, { address: string; pid: number }> = { '@fastify/static': fastifyStatic, 'serve-static': serveStatic };
    try {
      const results: BenchResult[] = [];
      const small = SIZES[0].bytes;
      let smallUrl: { ours: string; etag: string } | undefined;
      for (const { bytes } of SIZES) {
        const oursUrl = await uploadedUrl(ours.url, ws.token, bytes);
        const { etag } = await checkFileServing(oursUrl, fileBytes(bytes));
        if (bytes === small) smallUrl = { ours: oursUrl, etag };
        for (const name of Object.keys(PEERS) as PeerName[]) {
          const peerUrl = `${peers[name].address}/files/${bytes}.bin`;
          await checkFileServing(peerUrl, fileBytes(bytes));
          const stats = await compareHttp((side) => ({ url: side === 'ours' ? oursUrl : peerUrl }), {
            ours: ours.pid,
            baseline: peers[name].pid,
          });
          const goal = name === '@fastify/static' ? 'ratio >= 1.0' : undefined;
          results.push(
            fileResult(
              `peer-file-serve-${bytes < 1024 * 1024 ? '16kib' : '4mib'}${PEERS[name].suffix}`,
              bytes,
              stats,
              PEERS[name].notes(),
              goal,
            ),
          );
        }
      }
      for (const name of Object.keys(PEERS) as PeerName[]) {
        const peerUrl = `${peers[name].address}/files/${small}.bin`;
        const peerEtag = (await checkFileServing(peerUrl, fileBytes(small))).etag;
        const target = { ours: { url: smallUrl!.ours, etag: smallUrl!.etag }, baseline: { url: peerUrl, etag: peerEtag } };
        const stats = await compareHttp(
          (side) => ({ url: target[side].url, headers: { 'if-none-match': target[side].etag } }),
          { ours: ours.pid, baseline: peers[name].pid },
          { expectStatus: 304 },
        );
        results.push(
          result(`peer-file-serve-304${PEERS[name].suffix}`, stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', {
            ...(name === '@fastify/static' ? { goal: 'ratio >= 1.0' } : {}),
            notes: {
              ...cpuNotes(stats),
              ...PEERS[name].notes(),
              load: `GET of the ${small}-byte file with If-None-Match: <its ETag>, every answer 304`,
            },
          }),
        );
      }
      return results;
    } finally {
      await Promise.all([ours, fastifyStatic, serveStatic].map((server) => server.stop()));
    }
  } finally {
    await ws.cleanup();
  }
}

/** req/s for the small file, MB/s (decimal) for the large one, as file-serve reports them. */
export function fileResult(name: string, bytes: number, stats: Record<Side, LoadStats>, peer: PeerNotes, goal?: string): BenchResult {
  const notes = { ...cpuNotes(stats), ...peer, fileBytes: bytes };
  const extra = { ...(goal ? { goal } : {}), notes };
  if (bytes < 1024 * 1024) return result(name, stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', extra);
  const mbps = (rps: number) => (rps * bytes) / 1e6;
  return result(name, mbps(stats.ours.rps), mbps(stats.baseline.rps), 'MB/s', 'higher', extra);
}
