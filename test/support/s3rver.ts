import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { BlobStoreConfig } from '@switchyard/service';

export interface TestS3 {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  readonly bucket: string;
  /** Blob store configuration for the bucket, with s3rver's fixed credentials. */
  readonly config: Extract<BlobStoreConfig, { kind: 's3' }>;
  /** The folder s3rver keeps its files in (to prove nothing was left behind). */
  readonly directory: string;
  /** `METHOD /path?query` of every request served so far, oldest first (to see that an upload was aborted). */
  requests(): readonly string[];
  /** Stops the server and removes its files. Idempotent. */
  close(): Promise<void>;
}

/**
 * A real s3rver on a free loopback port, over a fresh temp folder, with one
 * empty bucket. s3rver 3.7.1 makes ListObjectsV2 continuation tokens with
 * DES, which OpenSSL 3 keeps in its legacy provider: the process hosting it
 * needs `--openssl-legacy-provider` (ava's `nodeArguments` in package.json),
 * else every listing past 1,000 keys answers 500.
 */
export async function startS3rver(): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'switchyard-s3rver-'));
  const bucket = `switchyard-${randomBytes(4).toString('hex')}`;
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  let address;
  try {
    address = await server.run();
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `http://127.0.0.1:${address.port}`;
  const requests: string[] = [];
  server.httpServer?.on('request', (request: IncomingMessage) => requests.push(`${request.method} ${request.url}`));
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const stopped = server.close();
      // Clients keep sockets alive; do not let them hold the test run open.
      server.httpServer?.closeAllConnections();
      await stopped;
      await rm(directory, { recursive: true, force: true });
    })());
  return {
    endpoint,
    bucket,
    directory,
    requests: () => [...requests],
    config: Object.freeze({
      kind: 's3',
      bucket,
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: Object.freeze({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }),
    }),
    close,
  };
}
