import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './child-server.js';
import { freePort } from './nginx.js';

const CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

export interface NatsServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** A private nats-server (Debian's `nats-server`, core NATS, no JetStream) on a free loopback port, logging to a scratch folder. */
export async function startNatsServer(): Promise<NatsServer> {
  const binary = CANDIDATES.find((path) => existsSync(path));
  if (!binary) throw new Error(`no nats-server at ${CANDIDATES.join(', ')}: apt-get install nats-server`);
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-bench-nats-'));
  try {
    const port = await freePort();
    const child = await startChild({
      command: binary,
      args: ['-a', '127.0.0.1', '-p', String(port)],
      env: {},
      ready: /Server is ready/,
      logFile: join(dir, 'nats.out'),
    });
    return {
      url: `nats://127.0.0.1:${port}`,
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
