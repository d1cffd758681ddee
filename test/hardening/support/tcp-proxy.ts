import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'cut' | 'stall';

interface Link {
  readonly client: Socket;
  upstream?: Socket;
}

/**
 * A loopback TCP proxy a test controls, standing in for the network between
 * the service and a dependency:
 * - `pass`: bytes flow both ways;
 * - `cut`: every open connection is reset and new ones are refused (a crashed
 *   host, a firewall that rejects);
 * - `stall`: connections stay open but no byte moves either way, and new ones
 *   are accepted and then hang (a partition, a hung host);
 * - `restore()` goes back to `pass`: stalled connections flow again, as after a
 *   healed partition.
 */
export class TcpProxy {
  #mode: ProxyMode = 'pass';
  readonly #links = new Set<Link>();

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    let proxy!: TcpProxy;
    const server = createServer((client) => proxy.#accept(client));
    proxy = new TcpProxy(server, target);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  get mode(): ProxyMode {
    return this.#mode;
  }

  /** `host:port` of the proxy in place of the target's. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  cut(): void {
    this.#mode = 'cut';
    for (const link of this.#links) this.#close(link);
  }

  stall(): void {
    this.#mode = 'stall';
    for (const link of this.#links) {
      link.client.unpipe();
      link.upstream?.unpipe();
      link.client.pause();
      link.upstream?.pause();
    }
  }

  restore(): void {
    this.#mode = 'pass';
    for (const link of this.#links) {
      if (link.upstream) this.#pipe(link);
      else this.#connect(link);
    }
  }

  async close(): Promise<void> {
    for (const link of this.#links) this.#close(link);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #accept(client: Socket): void {
    if (this.#mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const link: Link = { client };
    this.#links.add(link);
    client.on('error', () => this.#close(link));
    client.on('close', () => this.#close(link));
    client.pause();
    if (this.#mode === 'pass') this.#connect(link);
  }

  #connect(link: Link): void {
    const upstream = createConnection(this.target.port, this.target.host);
    link.upstream = upstream;
    upstream.on('error', () => this.#close(link));
    upstream.on('close', () => this.#close(link));
    upstream.on('connect', () => {
      if (this.#mode === 'pass') this.#pipe(link);
    });
  }

  #pipe(link: Link): void {
    if (!link.upstream) return;
    link.client.pipe(link.upstream);
    link.upstream.pipe(link.client);
    link.client.resume();
    link.upstream.resume();
  }

  #close(link: Link): void {
    if (!this.#links.delete(link)) return;
    link.client.resetAndDestroy();
    link.upstream?.resetAndDestroy();
  }
}
