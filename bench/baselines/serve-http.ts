import type { Server } from 'node:http';

/**
 * Listens on HOST:PORT (0: a free port), prints the `ready url=…` line the
 * bench harness waits for (with `extra`, e.g. `asset=…`), and on SIGTERM
 * closes every connection, runs `stop` and exits.
 */
export function serveHttp(server: Server, options: { extra?: string; stop?: () => Promise<void> | void } = {}): void {
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    console.log(`ready url=http://127.0.0.1:${port}${options.extra ? ` ${options.extra}` : ''}`);
  });
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void Promise.resolve(options.stop?.()).then(() => process.exit(0));
  });
}
