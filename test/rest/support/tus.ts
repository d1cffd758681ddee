import { createServer, connect, type Server, type Socket } from 'node:net';
import { DefaultHttpStack, Upload, type HttpRequest, type HttpStack, type UploadOptions } from 'tus-js-client';

/**
 * A TCP proxy in front of a gateway that cuts every connection once the
 * client has sent the next of `cutsAt` (bytes, counted over all connections
 * together): the network dropping mid-upload, as a phone changing cells does.
 */
export interface CuttingProxy {
  readonly url: string;
  /** How many connections it has cut so far. */
  cuts(): number;
  /** Bytes the client sent through it, over all connections. */
  sent(): number;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: string, cutsAt: readonly number[]): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const pending = [...cutsAt].sort((a, b) => a - b);
  let sent = 0;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    const cut = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      if (pending.length > 0 && sent >= pending[0]!) {
        pending.shift();
        cuts++;
        return cut();
      }
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on('drain', () => client.resume());
    upstream.pipe(client);
    client.on('close', () => upstream.destroy()).on('error', cut);
    upstream.on('close', () => client.destroy()).on('error', cut);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cuts: () => cuts,
    sent: () => sent,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** tus-js-client's own HTTP stack, sending every request after the first to another origin (a second gateway behind a load balancer). */
export function switchingHttpStack(from: string, to: string): HttpStack {
  const inner = new DefaultHttpStack({});
  let requests = 0;
  return {
    createRequest(method: string, url: string): HttpRequest {
      requests++;
      return inner.createRequest(method, requests > 1 && url.startsWith(from) ? to + url.slice(from.length) : url);
    },
    getName: () => 'switching',
  };
}

export interface TusExchange {
  readonly method: string;
  /** The request's Upload-Offset (PATCH), if any. */
  readonly sentOffset: number | undefined;
  readonly status: number;
  /** The answer's Upload-Offset, if any. */
  readonly offset: number | undefined;
}

export interface TusResult {
  readonly uploadUrl: string;
  readonly assetId: string;
  /** Every request the client made that got an answer, in order. */
  readonly exchanges: readonly TusExchange[];
}

const offsetOf = (value: string | undefined): number | undefined => (value === undefined || value === '' ? undefined : Number(value));

/** Runs one tus-js-client upload to its end; resolves with the upload url and the asset the completing response named. */
export function tusUpload(file: Buffer, options: UploadOptions): Promise<TusResult> {
  return new Promise((resolve, reject) => {
    let assetId = '';
    const exchanges: TusExchange[] = [];
    const upload = new Upload(file, {
      retryDelays: [0, 100, 250, 500, 1000, 1000, 2000],
      storeFingerprintForResuming: false,
      ...options,
      onAfterResponse: (request, response) => {
        const header = response.getHeader('switchyard-asset-id');
        if (header) assetId = header;
        exchanges.push({
          method: request.getMethod(),
          sentOffset: offsetOf(request.getHeader('Upload-Offset')),
          status: response.getStatus(),
          offset: offsetOf(response.getHeader('upload-offset')),
        });
        return options.onAfterResponse?.(request, response);
      },
      onSuccess: () =>
        assetId
          ? resolve({ uploadUrl: upload.url ?? '', assetId, exchanges })
          : reject(new Error('the upload finished without naming an asset')),
      onError: reject,
    });
    upload.start();
  });
}
