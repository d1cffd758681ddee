import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startBroker, type BrokerServer } from './broker-server.js';

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

export type RedisServer = BrokerServer;

/** A private redis-server on a free loopback port, without persistence, in a scratch folder of its own (the package's own service is not used). */
export function startRedisServer(): Promise<RedisServer> {
  return startBroker({
    name: 'redis',
    binary: ensureRedis(),
    args: (port, dir) => [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--protected-mode',
      'no',
    ],
    ready: /Ready to accept connections/,
    url: (port) => `redis://127.0.0.1:${port}`,
  });
}
