import { existsSync } from 'node:fs';
import { startBroker, type BrokerServer } from './broker-server.js';

const CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

export type NatsServer = BrokerServer;

/** A private nats-server (Debian's `nats-server`, core NATS, no JetStream) on a free loopback port, logging to a scratch folder. */
export function startNatsServer(): Promise<NatsServer> {
  const binary = CANDIDATES.find((path) => existsSync(path));
  if (!binary) throw new Error(`no nats-server at ${CANDIDATES.join(', ')}: apt-get install nats-server`);
  return startBroker({
    name: 'nats',
    binary,
    args: (port) => ['-a', '127.0.0.1', '-p', String(port)],
    ready: /Server is ready/,
    url: (port) => `nats://127.0.0.1:${port}`,
  });
}
