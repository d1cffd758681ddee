import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './child-server.js';
import { freePort } from './nginx.js';

/** A private broker (redis-server, nats-server) on a free loopback port. */
export interface BrokerServer {
  readonly url: string;
  stop(): Promise<void>;
}

export interface BrokerLaunch {
  /** Names the scratch folder and the log (`switchyard-bench-<name>-…`, `<name>.out`). */
  readonly name: string;
  readonly binary: string;
  /** The program's arguments for a port and its scratch folder. */
  readonly args: (port: number, dir: string) => readonly string[];
  /** Printed once it accepts connections. */
  readonly ready: RegExp;
  /** The url clients connect to, on `port`. */
  readonly url: (port: number) => string;
}

/** Starts the broker in a scratch folder of its own, logging there; the folder goes when it stops, or when it never started. */
export async function startBroker(launch: BrokerLaunch): Promise<BrokerServer> {
  const dir = await mkdtemp(join(tmpdir(), `switchyard-bench-${launch.name}-`));
  try {
    const port = await freePort();
    const child = await startChild({
      command: launch.binary,
      args: launch.args(port, dir),
      env: {},
      ready: launch.ready,
      logFile: join(dir, `${launch.name}.out`),
    });
    return {
      url: launch.url(port),
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
