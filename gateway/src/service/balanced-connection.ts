import { createClient, type Client, type Transport } from '@connectrpc/connect';
import type { TimeSource } from '@switchyard/core';
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from '@switchyard/proto';
import { Counter, createLogger, Gauge, type Logger, type Registry } from '@switchyard/runtime';
import type { LookupAll, ServiceTarget } from './address-list.js';
import { AddressResolver } from './address-resolver.js';
import { createBalancedTransport } from './balanced-transport.js';
import type { ProbeResult } from './health-tracker.js';
import { connectService, type ServiceConnection } from './service-connection.js';
import { ServicePool } from './service-pool.js';

export interface BalancedConnectionOptions {
  readonly log?: Logger | undefined;
  readonly metrics?: Registry | undefined;
  readonly lookup?: LookupAll | undefined;
  /** Re-resolution period of DNS names (30 s). */
  readonly resolveIntervalMs?: number | undefined;
  /** The clock and timers of re-resolution, health checks, drains, retry deadlines and call deadlines (systemTime). */
  readonly time?: TimeSource | undefined;
}

/**
 * The gateway's connections to every address SERVICE_URL lists or resolves
 * to, kept current (address-resolver.ts) and healthy (service-pool.ts), as one
 * transport (balanced-transport.ts). Each connection is the single-address
 * one (service-connection.ts), direct calls included.
 */
export function connectBalanced(targets: readonly ServiceTarget[], options: BalancedConnectionOptions = {}): ServiceConnection {
  const log = options.log ?? createLogger('silent');
  const metrics = options.metrics && balancingMetrics(options.metrics);
  const pool = new ServicePool({
    connect: (address) => connectService(address.url, address.servername, options.time),
    probe: check,
    log,
    onHealthyCount: (count) => metrics?.healthy.set(count),
    time: options.time,
  });
  const resolver = new AddressResolver({
    targets,
    lookup: options.lookup,
    intervalMs: options.resolveIntervalMs,
    time: options.time,
    onAddresses: (addresses) => pool.update(addresses),
    onError: (error) =>
      log.warn(
        { err: error, serviceUrl: targets.map((target) => target.origin).join(',') },
        'SERVICE_URL did not resolve; keeping the addresses known',
      ),
  });
  const resolved = resolver.start();
  const transport = createBalancedTransport(
    {
      pick: (besides) => pool.pick(besides),
      // A dead connection may mean the addresses changed (a pod replaced): look again, rate-limited.
      fail: (member, reason) => {
        pool.fail(member, reason);
        resolver.refresh();
      },
      starved: () => resolver.refresh(),
      resolved,
    },
    { onRetry: () => metrics?.retried.inc(), time: options.time },
  );
  return {
    transport,
    close: () => {
      resolver.close();
      pool.close();
    },
  };
}

const healthClients = new WeakMap<Transport, Client<typeof Health>>();

/** grpc.health.v1 Check of the whole server (`service: ""`): SERVING means its database and blob store answer. */
async function check(transport: Transport, timeoutMs: number): Promise<ProbeResult> {
  let client = healthClients.get(transport);
  if (client === undefined) healthClients.set(transport, (client = createClient(Health, transport)));
  const { status } = await client.check({ service: '' }, { timeoutMs });
  return status === ServingStatus.SERVING
    ? { serving: true }
    : { serving: false, reason: `the service reports ${ServingStatus[status] ?? String(status)}` };
}

const registered = new WeakMap<Registry, { healthy: Gauge; retried: Counter }>();

/** One set per registry: several gateways in one process (tests) share the series. */
function balancingMetrics(registry: Registry): { healthy: Gauge; retried: Counter } {
  let found = registered.get(registry);
  if (found === undefined) {
    found = {
      healthy: new Gauge({
        name: 'switchyard_gateway_service_connections_healthy',
        help: 'Service connections of a balanced gateway (SERVICE_URL listing or resolving to several addresses) whose last health check passed.',
        registers: [registry],
      }),
      retried: new Counter({
        name: 'switchyard_gateway_service_retries_total',
        help: 'Idempotent reads sent again on another service connection after theirs died.',
        registers: [registry],
      }),
    };
    registered.set(registry, found);
  }
  return found;
}
