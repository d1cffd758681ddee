// Baseline for the gRPC benchmark: a bare grpc-js server whose GetAsset answers a
// fixed message (no auth, no database): the transport's ceiling.
import { Server, ServerCredentials, status, type ServiceError } from '@grpc/grpc-js';
import { AssetServiceService, type Asset, type AssetServiceServer } from '@switchyard/service/gen/switchyard/v1/assets.js';

const now = new Date();
const FIXED: Asset = {
  id: 'as_01jbench0000000000000000000',
  type: 'image/png',
  size: 68,
  url: 'http://127.0.0.1/files/as_01jbench0000000000000000000/bl_01jbench0000000000000000000.png',
  uploadedAt: now,
  createdAt: now,
  label: 'bench',
  sha256: 'f'.repeat(64),
  width: 1,
  height: 1,
  visibility: 'public',
  // What the gRPC load uploads its asset as (harness/grpc-load.ts).
  name: 'pixel.png',
};

const unimplemented = { code: status.UNIMPLEMENTED, details: 'not in the baseline' } as ServiceError;
const handlers: AssetServiceServer = {
  getAsset: (_call, callback) => callback(null, FIXED),
  uploadAsset: (_call, callback) => callback(unimplemented, null),
  replaceAsset: (_call, callback) => callback(unimplemented, null),
  listAssets: (_call, callback) => callback(unimplemented, null),
  deleteAsset: (_call, callback) => callback(unimplemented, null),
  batchDeleteAssets: (_call, callback) => callback(unimplemented, null),
  getWorkspaceUsage: (_call, callback) => callback(unimplemented, null),
  updateAsset: (_call, callback) => callback(unimplemented, null),
  createSignedUrl: (_call, callback) => callback(unimplemented, null),
  revokeSignedUrls: (_call, callback) => callback(unimplemented, null),
  getWorkspacePolicy: (_call, callback) => callback(unimplemented, null),
  setWorkspacePolicy: (_call, callback) => callback(unimplemented, null),
  watchAssets: (call) => call.destroy(unimplemented),
  listAssetChanges: (_call, callback) => callback(unimplemented, null),
  listAssetVersions: (_call, callback) => callback(unimplemented, null),
  readAssetVersion: (call) => call.destroy(unimplemented),
  restoreAssetVersion: (_call, callback) => callback(unimplemented, null),
  listTrash: (_call, callback) => callback(unimplemented, null),
  restoreAsset: (_call, callback) => callback(unimplemented, null),
  purgeAsset: (_call, callback) => callback(unimplemented, null),
};

const server = new Server();
server.addService(AssetServiceService, handlers);
server.bindAsync(`${process.env.HOST ?? '127.0.0.1'}:${process.env.GRPC_PORT ?? 0}`, ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  console.log(`ready grpc=127.0.0.1:${port}`);
});
process.once('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
