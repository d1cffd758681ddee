import { isIP } from 'node:net';
import { httpUrl, no, Refusal } from '@switchyard/runtime';

/** One entry of SERVICE_URL: an origin whose host is an IP address or a DNS name. */
export interface ServiceTarget {
  /** `http://host:port` as configured (normalized by URL). */
  readonly origin: string;
  readonly protocol: 'http:' | 'https:';
  /** Without IPv6 brackets. */
  readonly hostname: string;
  readonly port: number;
  /** The host is an IP address: nothing to resolve. */
  readonly literal: boolean;
}

/** One address to connect to: `http://ip:port`, with the configured host name kept for TLS (SNI and certificate check). */
export interface ServiceAddress {
  readonly url: string;
  readonly servername: string | undefined;
}

/** Resolves a host name to its addresses, as node:dns `lookup(host, { all: true })` does. */
export type LookupAll = (hostname: string) => Promise<readonly string[]>;

const DEFAULT_PORT = { 'http:': 80, 'https:': 443 } as const;

/**
 * SERVICE_URL: one or more comma-separated origins (`http://10.0.0.5:50051,
 * http://10.0.0.6:50051`), or one DNS name resolving to several
 * (`http://switchyard-service:50051`). The refusal names the entry at fault.
 */
export function parseServiceTargets(raw: string): readonly ServiceTarget[] | Refusal {
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => entry === '')) return no('lists no address');
  const targets: ServiceTarget[] = [];
  for (const [index, entry] of entries.entries()) {
    const named = entries.length > 1 ? `entry ${index + 1} (${JSON.stringify(entry)}) ` : '';
    if (entry === '') return no(`entry ${index + 1} is empty (a stray comma?)`);
    const url = httpUrl(entry);
    if (url instanceof Refusal) return no(`${named}${url.reason}`);
    if (url.pathname !== '/')
      return no(`${named}must be just scheme, host and port (gRPC has no path prefix), e.g. http://127.0.0.1:50051`);
    const protocol = url.protocol as ServiceTarget['protocol'];
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const target = {
      origin: url.origin,
      protocol,
      hostname,
      port: url.port === '' ? DEFAULT_PORT[protocol] : Number(url.port),
      literal: isIP(hostname) !== 0,
    };
    if (targets.some((seen) => seen.origin === target.origin)) return no(`${named}is listed twice`);
    targets.push(target);
  }
  return targets;
}

/** The normalized list as SERVICE_URL's value in the gateway's configuration. */
export function formatServiceTargets(targets: readonly ServiceTarget[]): string {
  return targets.map((target) => target.origin).join(',');
}

/** One target whose host is an IP address: the gateway keeps today's single connection, no balancing. */
export function isSingleAddress(targets: readonly ServiceTarget[]): boolean {
  return targets.length === 1 && targets[0]!.literal;
}

/**
 * Every address the targets name now, in order, without repeats. A name that
 * fails to resolve contributes nothing (the others still serve); only when
 * no name resolves and no literal is listed does this reject, with the first
 * lookup error.
 */
export async function resolveTargets(targets: readonly ServiceTarget[], lookup: LookupAll): Promise<readonly ServiceAddress[]> {
  const resolved = await Promise.allSettled(
    targets.map(async (target) => (target.literal ? [target.hostname] : await lookup(target.hostname))),
  );
  const addresses = new Map<string, ServiceAddress>();
  let firstError: unknown;
  for (const [index, outcome] of resolved.entries()) {
    const target = targets[index]!;
    if (outcome.status === 'rejected') {
      firstError ??= outcome.reason;
      continue;
    }
    for (const ip of outcome.value) {
      const url = `${target.protocol}//${isIP(ip) === 6 ? `[${ip}]` : ip}:${target.port}`;
      if (!addresses.has(url))
        addresses.set(url, { url, servername: target.protocol === 'https:' && !target.literal ? target.hostname : undefined });
    }
  }
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- a lookup's rejection, passed on as it came
  if (addresses.size === 0 && firstError !== undefined) throw firstError;
  return [...addresses.values()];
}
