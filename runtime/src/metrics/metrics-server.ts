import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  /** `http://host:port/metrics`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `registry` as Prometheus text at `/metrics` on its own port
 * (METRICS_PORT), apart from the API: scrapes never queue behind client
 * traffic or its limits, and the port can stay off the public network.
 */
export async function serveMetrics(registry: Registry, host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res
        .writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8' })
        .end(path === '/metrics' ? 'use GET\n' : 'metrics are at /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) =>
        res
          .writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' })
          .end(req.method === 'HEAD' ? undefined : text),
      (error: unknown) =>
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`collecting metrics failed: ${String(error)}\n`),
    );
  });
  server.listen(port, host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error as Error))]);
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shownHost}:${bound}/metrics`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
