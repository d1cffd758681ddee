import { credentials, Metadata } from '@grpc/grpc-js';
import { AssetServiceClient } from '@switchyard/service/gen/switchyard/v1/assets.js';
import type { LoadStats } from './alternate.js';
import { PIXEL_PNG } from './pixel.js';
import { plan } from './plan.js';

/** A grpc-js AssetService client on one channel, with the bench's bearer token. */
export function grpcAssetClient(address: string, token: string) {
  const client = new AssetServiceClient(address, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  let assetId = 'as_00000000000000000000000000';

  /** Uploads the pixel over the client stream (metadata first, then the bytes); later calls read that asset. */
  const seed = () =>
    new Promise<void>((resolve, reject) => {
      const stream = client.uploadAsset(metadata, (error, asset) => (error ? reject(error) : resolve(void (assetId = asset.id))));
      stream.write({ metadata: { label: 'bench', filename: 'pixel.png', declaredType: 'image/png', visibility: '' } });
      stream.write({ chunk: PIXEL_PNG });
      stream.end();
    });

  const call = () =>
    new Promise<void>((resolve, reject) => client.getAsset({ id: assetId }, metadata, (error) => (error ? reject(error) : resolve())));

  /** Keeps `plan.grpcConcurrency` unary GetAsset calls in flight for `seconds`; any error fails the run. */
  async function load(seconds: number): Promise<LoadStats> {
    const latencies: number[] = [];
    const started = performance.now();
    const until = started + seconds * 1000;
    const caller = async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    };
    await Promise.all(Array.from({ length: plan.grpcConcurrency }, caller));
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return { rps: latencies.length / elapsed, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0, requests: latencies.length };
  }
  return { seed, load, close: () => client.close() };
}
