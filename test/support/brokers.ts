// Private Redis and NATS servers for tests: Debian's redis-server and
// nats-server on free loopback ports, each in a scratch folder of its own, so
// stopping one (to test what happens when the broker goes away) touches
// nothing else on the machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually.js';
import { freePort } from './free-port.js';

export interface TestBroker {
  /** `redis://127.0.0.1:<port>` or `nats://127.0.0.1:<port>`; the same across `stop` and `start`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGKILL: as a crash or a lost host looks to clients). Idempotent. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after `stop`). */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

export const REDIS_SERVER = process.env['REDIS_SERVER'] ?? 'redis-server';
export const NATS_SERVER = process.env['NATS_SERVER'] ?? 'nats-server';

/** A redis-server without persistence (a restart starts empty, as pub/sub and limit counters may). */
export function startRedis(): Promise<TestBroker> {
  return startBroker('redis', (port, dir) => [
    REDIS_SERVER,
    [
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
      '--loglevel',
      'warning',
    ],
  ]);
}

/** A nats-server, core NATS only (no JetStream: Switchyard uses plain subjects). */
export function startNats(): Promise<TestBroker> {
  return startBroker('nats', (port) => [NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port)]]);
}

async function startBroker(scheme: 'redis' | 'nats', command: (port: number, dir: string) => [string, string[]]): Promise<TestBroker> {
  const dir = await mkdtemp(join(tmpdir(), `switchyard-${scheme}-`));
  const port = await freePort();
  const [binary, args] = command(port, dir);
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    if (child) return;
    const started = spawn(binary, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    started.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const failed = once(started, 'error').then(([error]) => {
      throw new Error(`${binary} did not start: ${(error as Error).message}`);
    });
    const exited = once(started, 'exit').then(([code]) => {
      throw new Error(`${binary} exited (${String(code)}) before it listened: ${stderr.trim()}`);
    });
    await Promise.race([waitForPort(port), failed, exited]);
    child = started;
  };

  const stop = async (): Promise<void> => {
    const running = child;
    if (!running) return;
    child = undefined;
    if (running.exitCode === null && running.signalCode === null) {
      const exited = once(running, 'exit');
      running.kill('SIGKILL');
      await exited;
    }
  };

  await start();
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    stop,
    start,
    close: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once something accepts connections on the port (10 s at most). */
async function waitForPort(port: number): Promise<void> {
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      const socket = createConnection(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
  await eventually(accepts, { timeout: 10_000, interval: 25, message: `a listener on 127.0.0.1:${port}` });
}
