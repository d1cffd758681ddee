// Baseline gateway for rest-get-asset-split: node:http in front of a grpc-js
// client, relaying GET /v1/assets/:id (with the caller's token) to
// grpc-asset-server.ts and answering its reply as JSON.
import { createServer } from 'node:http';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { AssetServiceClient, type Asset } from '@switchyard/service/gen/switchyard/v1/assets.js';
import { requiredEnv } from './baseline-auth.js';
import { serveHttp } from './serve-http.js';

const ASSET_PATH = /^\/v1\/assets\/(as_[0-9a-z]{26})$/;
const client = new AssetServiceClient(requiredEnv('SERVICE_ADDRESS'), credentials.createInsecure());

const HTTP_STATUS: Partial<Record<status, number>> = { [status.UNAUTHENTICATED]: 401, [status.NOT_FOUND]: 404 };

const json = (asset: Asset) => ({ ...asset, uploadedAt: asset.uploadedAt?.toISOString(), createdAt: asset.createdAt?.toISOString() });

const server = createServer((req, res) => {
  const id = req.method === 'GET' ? ASSET_PATH.exec(req.url ?? '')?.[1] : undefined;
  if (!id) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"not_found"}');
  const metadata = new Metadata();
  metadata.set('authorization', req.headers.authorization ?? '');
  client.getAsset({ id }, metadata, (error: ServiceError | null, asset?: Asset) => {
    if (error || !asset)
      return void res
        .writeHead(HTTP_STATUS[error?.code ?? status.INTERNAL] ?? 500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ code: 'error', message: error?.details }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(json(asset)));
  });
});
serveHttp(server, { stop: () => client.close() });
