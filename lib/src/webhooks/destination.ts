import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { invalidArgument, SwitchyardError } from '../errors.js';

/** The longest URL an endpoint may have. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Addresses that are not on the public Internet (IANA special-purpose registries); refused unless allowed. */
const NON_PUBLIC: readonly (readonly [string, number, 'ipv4' | 'ipv6'])[] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.88.99.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['2001::', 23, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['2002::', 16, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

/** Decides which resolved addresses a delivery may connect to. */
export interface AddressPolicy {
  allows(address: string): boolean;
}

/**
 * Public addresses, and those in `allowed` (CIDRs, WEBHOOK_ALLOWED_NETWORKS).
 * An IPv4-mapped IPv6 address is judged as its IPv4 address.
 */
export function createAddressPolicy(allowed: readonly string[] = []): AddressPolicy {
  const blocked = new BlockList();
  for (const [network, prefix, family] of NON_PUBLIC) blocked.addSubnet(network, prefix, family);
  const exceptions = new BlockList();
  for (const cidr of allowed) {
    const [network, prefix] = parseCidr(cidr);
    exceptions.addSubnet(network, prefix, isIP(network) === 4 ? 'ipv4' : 'ipv6');
  }
  const judge = (address: string): boolean => {
    const plain = unmapped(address);
    const family = isIP(plain);
    if (family === 0) return false;
    const kind = family === 4 ? 'ipv4' : 'ipv6';
    return exceptions.check(plain, kind) || !blocked.check(plain, kind);
  };
  // Verdicts kept by address: BlockList.check builds a SocketAddress per call, about 165 µs of samples per
  // delivery in a profile of the relay sending 3,000 (webhook-delivery), and one endpoint's deliveries go to
  // the same few addresses.
  const verdicts = new Map<string, boolean>();
  return Object.freeze({
    allows(address: string): boolean {
      let verdict = verdicts.get(address);
      if (verdict === undefined) {
        verdict = judge(address);
        if (verdicts.size >= MAX_REMEMBERED_VERDICTS) verdicts.clear();
        verdicts.set(address, verdict);
      }
      return verdict;
    },
  });
}

/** Addresses whose verdict a policy remembers; past this it forgets them all and starts again. */
const MAX_REMEMBERED_VERDICTS = 1024;

/** `10.0.0.0/8` → its parts; a bare address is a single host. Refuses anything else. */
export function parseCidr(text: string, field = 'WEBHOOK_ALLOWED_NETWORKS'): readonly [string, number] {
  const [network = '', prefixText, extra] = text.trim().split('/');
  const family = isIP(network);
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (family === 0 || extra !== undefined || !(prefix >= 0 && prefix <= max))
    throw invalidArgument(field, `"${text.trim()}" is not a CIDR such as 127.0.0.0/8 or fd00::/8`);
  return [network, prefix];
}

function unmapped(address: string): string {
  const mapped = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/**
 * An endpoint's URL, checked when it is written: absolute http(s), no user
 * or password (they would end up in logs), and an IP-literal host must be
 * allowed. A host name is judged by what it resolves to at each delivery.
 */
export function webhookUrlOf(input: unknown, policy: AddressPolicy, field = 'url'): string {
  if (typeof input !== 'string' || input.length === 0) throw invalidArgument(field, 'an http or https URL is required');
  if (input.length > MAX_WEBHOOK_URL_LENGTH) throw invalidArgument(field, `at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidArgument(field, 'not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidArgument(field, 'only http and https URLs are accepted');
  if (url.username !== '' || url.password !== '') throw invalidArgument(field, 'credentials in the URL are not accepted');
  if (url.hostname === '') throw invalidArgument(field, 'the URL has no host');
  const literal = hostAddress(url);
  if (literal !== undefined && !policy.allows(literal))
    throw invalidArgument(field, `${literal} is not a public address (WEBHOOK_ALLOWED_NETWORKS does not list it)`);
  return url.href;
}

/** The URL's host when it is an IP literal (brackets removed), else undefined. */
export function hostAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? undefined : host;
}

/** One resolved address, as `dns.lookup` answers with `all`. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Resolves a host name; injected so tests can map names to any address without a DNS server. */
export type HostResolver = (host: string) => Promise<readonly ResolvedAddress[]>;

/**
 * How many of the system's lookups may run at once. `dns.lookup` is getaddrinfo on libuv's thread
 * pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which file reads and writes share: a
 * name whose DNS server stalls holds its thread for the resolver's whole timeout (up to about 30 s),
 * and endpoints named that way must not take every thread from the files being served.
 */
const SYSTEM_LOOKUPS_AT_ONCE = 2;

/** `resolve` with at most `limit` resolutions running at once; the others wait their turn, in order. */
export function resolvingAtMost(limit: number, resolve: HostResolver): HostResolver {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (host) => {
    if (running >= limit) await new Promise<void>((resume) => waiting.push(resume));
    else running += 1;
    try {
      return await resolve(host);
    } finally {
      // The slot passes straight to the next in line (running stays the same), or is freed.
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

/** getaddrinfo (so /etc/hosts and nsswitch count), at most SYSTEM_LOOKUPS_AT_ONCE at a time. */
export const systemResolver: HostResolver = resolvingAtMost(SYSTEM_LOOKUPS_AT_ONCE, (host) => lookup(host, { all: true, verbatim: true }));

/**
 * The address to connect to for `url`: resolved once, then checked, so the
 * connection goes to the very address judged (a name that resolves
 * differently a moment later cannot slip past). Any disallowed address among
 * the answers refuses the whole name, as a rebinding defence.
 */
export async function resolveDestination(url: URL, policy: AddressPolicy, resolve: HostResolver): Promise<ResolvedAddress> {
  const literal = hostAddress(url);
  const answers = literal === undefined ? await resolve(url.hostname) : [{ address: literal, family: isIP(literal) }];
  if (answers.length === 0) throw new SwitchyardError('unavailable', `${url.hostname} did not resolve`);
  const refused = answers.find((answer) => !policy.allows(answer.address));
  if (refused)
    throw new SwitchyardError(
      'permission_denied',
      `destination refused: ${url.hostname} resolves to ${refused.address}, not a public address`,
    );
  return answers[0]!;
}
