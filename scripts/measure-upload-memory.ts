// Measures how much a large gRPC upload grows the service's memory.
//
//   npx tsx scripts/measure-upload-memory.ts [MiB=1024]
//
// Starts `switchyard service` as its own process (SQLite + disk in a temp
// DATA_DIR), streams a generated file through a real grpc-js client in 64 KiB
// chunks, samples the server's /proc/<pid>/status while it runs, and prints the
// peak RSS growth over the RSS just before the upload. Linux only.
import { spawn } from 'node:child_process';
import { cliArgs } from '../test/support/cli.js';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentials, Metadata, type ClientWritableStream } from '@grpc/grpc-js';
import { SignJWT } from 'jose';
import { AssetServiceClient, type Asset, type UploadAssetRequest } from '@switchyard/service/gen/switchyard/v1/assets.js';

const MIB = 1024 * 1024;
const CHUNK = 64 * 1024;
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const sizeMiB = Number(process.argv[2] ?? 1024);

function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') * 1024, hwm: kib('VmHWM') * 1024 };
}

async function startServer(dataDir: string, secret: string): Promise<{ pid: number; address: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, cliArgs('service'), {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      GRPC_PORT: '0',
      DATA_DIR: dataDir,
      AUTH_SECRET: secret,
      CDN_URL: 'http://cdn.test/files',
      MAX_UPLOAD_BYTES: String(4 * 1024 * MIB),
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      BLOB_STORE: '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const address = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (\S+:\d+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code}:\n${output}`)));
  });
  return {
    pid: child.pid!,
    address,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

function upload(client: AssetServiceClient, token: string, mib: number, block: Buffer): Promise<{ asset: Asset; sha256: string }> {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  const hash = createHash('sha256');
  let stream!: ClientWritableStream<UploadAssetRequest>;
  const result = new Promise<Asset>((resolve, reject) => {
    stream = client.uploadAsset(metadata, (error, asset) => (error ? reject(error) : resolve(asset)));
  });
  const send = async () => {
    stream.write({ metadata: { label: 'memory probe', filename: 'probe.bin', declaredType: '', visibility: '' } });
    for (let i = 0; i < mib; i++) {
      for (let offset = 0; offset < MIB; offset += CHUNK) {
        const chunk = block.subarray(offset, offset + CHUNK);
        hash.update(chunk);
        if (!stream.write({ chunk })) await once(stream, 'drain');
      }
    }
    stream.end();
  };
  return Promise.all([result, send()]).then(([asset]) => ({ asset, sha256: hash.digest('hex') }));
}

const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-memory-'));
const secret = randomBytes(32).toString('base64url');
const token = await new SignJWT({ workspace: 'memory', scope: 'assets:write' })
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject('probe')
  .setIssuedAt()
  .setExpirationTime('2h')
  .sign(new TextEncoder().encode(secret));
const server = await startServer(dataDir, secret);
const client = new AssetServiceClient(server.address, credentials.createInsecure());
const block = randomBytes(MIB);
try {
  // Warm-up: load every module an upload touches (sniffing, hashing, storage) before the baseline.
  await upload(client, token, 4, block);
  const before = memory(server.pid);
  let peak = before.rss;
  const sampler = setInterval(() => (peak = Math.max(peak, memory(server.pid).rss)), 25);
  const started = process.hrtime.bigint();
  const { asset, sha256 } = await upload(client, token, sizeMiB, block);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  const after = memory(server.pid);
  peak = Math.max(peak, after.rss);
  if (asset.size !== sizeMiB * MIB || asset.sha256 !== sha256)
    throw new Error(`stored ${asset.size} bytes with sha256 ${asset.sha256}, sent ${sha256}`);
  const mib = (bytes: number) => (bytes / MIB).toFixed(1);
  console.log(
    `uploaded ${sizeMiB} MiB over gRPC in ${seconds.toFixed(1)} s (${((sizeMiB * MIB) / 1e6 / seconds).toFixed(0)} MB/s), sha256 verified`,
  );
  console.log(
    `server RSS before ${mib(before.rss)} MiB, peak ${mib(peak)} MiB, after ${mib(after.rss)} MiB; VmHWM ${mib(before.hwm)} -> ${mib(after.hwm)} MiB`,
  );
  console.log(`UPLOAD_RSS_GROWTH_MIB=${mib(peak - before.rss)} HWM_GROWTH_MIB=${mib(after.hwm - before.hwm)}`);
} finally {
  client.close();
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
