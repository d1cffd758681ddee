import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './child-server.js';
import { freePort } from './nginx.js';

const CANDIDATES = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'];

/** The redis-server binary; when there is none, installs Debian's package first (apt output to stderr, so stdout keeps only BENCH lines). */
function ensureRedis(): string {
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  const apt = (args: string[]) =>
    execFileSync('apt-get', args, {
      stdio: ['ignore', 2, 2],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 15 * 60_000,
    });
  console.error('redis-server is missing: apt-get install -y redis-server');
  try {
    apt(['install', '-y', 'redis-server']);
  } catch {
    apt(['update']);
    apt(['install', '-y', 'redis-server']);
  }
  const installed = CANDIDATES.find((path) => existsSync(path));
  if (!installed) throw new Error('apt-get install redis-server finished, but no redis-server binary was found');
  return installed;
}

export interface RedisServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** A private redis-server on a free loopback port, without persistence, in a scratch folder of its own (the package's own service is not used). */
export async function startRedisServer(): Promise<RedisServer> {
  const binary = ensureRedis();
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-bench-redis-'));
  try {
    const port = await freePort();
    const child = await startChild({
      command: binary,
      args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no'],
      env: {},
      ready: /Ready to accept connections/,
      logFile: join(dir, 'redis.out'),
    });
    return {
      url: `redis://127.0.0.1:${port}`,
      stop: async () => {
        await child.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
