import type { FastifyRequest } from 'fastify';

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The origin clients reach this gateway at, for absolute `Location` urls.
 * Behind a proxy the operator says so (TRUST_PROXY), and the first
 * X-Forwarded-Proto and X-Forwarded-Host are taken; otherwise the request's
 * own Host over plain http (the gateway terminates no TLS). A header that is
 * not a plain host or scheme is ignored rather than echoed.
 */
export function publicOrigin(request: FastifyRequest, trustProxy: boolean): string {
  const first = (value: string | string[] | undefined): string | undefined =>
    (Array.isArray(value) ? value[0] : value)?.split(',', 1)[0]?.trim();
  const forwardedProto = trustProxy ? first(request.headers['x-forwarded-proto'])?.toLowerCase() : undefined;
  const forwardedHost = trustProxy ? first(request.headers['x-forwarded-host']) : undefined;
  const scheme = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : 'http';
  const host = [forwardedHost, first(request.headers.host)].find((candidate) => candidate !== undefined && HOST.test(candidate));
  return `${scheme}://${host ?? `${request.socket.localAddress ?? '127.0.0.1'}:${request.socket.localPort ?? 80}`}`;
}
