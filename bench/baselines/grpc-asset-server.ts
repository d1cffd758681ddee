// Baseline service for rest-get-asset-split: a bare grpc-js server whose
// GetAsset does what ours does on a read — the same HS256 check and an indexed
// SQLite lookup (better-sqlite3, prepared) — and nothing else.
import { join } from 'node:path';
import { Server, ServerCredentials, status, type ServiceError } from '@grpc/grpc-js';
import { extension } from 'mime-types';
import { ulid } from 'ulid';
import { AssetServiceService, type AssetServiceServer } from '@switchyard/service/gen/switchyard/v1/assets.js';
import { createAuth, requiredEnv } from './baseline-auth.js';
import { openSqliteStore, type AssetRow } from './baseline-store.js';

const CDN_URL = process.env.CDN_URL ?? 'http://127.0.0.1/files';
const authorize = createAuth(requiredEnv('AUTH_SECRET'));
const store = openSqliteStore(join(requiredEnv('DATA_DIR'), 'baseline-split.sqlite'));
const refusal = (code: status, details: string) => ({ code, details }) as ServiceError;

const handlers: AssetServiceServer = {
  getAsset: (call, callback) => {
    const authorization = String(call.metadata.get('authorization')[0] ?? '');
    void authorize({ headers: { authorization } }, 'assets:read').then(async (auth) => {
      if ('status' in auth) return callback(refusal(status.UNAUTHENTICATED, 'refused'), null);
      const row = await store.getAsset(auth.workspace, call.request.id);
      if (!row) return callback(refusal(status.NOT_FOUND, 'no such asset'), null);
      callback(null, {
        id: row.id,
        type: row.type,
        size: row.size,
        url: `${CDN_URL}/${row.id}/${row.blob_id}.${extension(row.type) || 'bin'}`,
        uploadedAt: new Date(row.uploaded_at),
        createdAt: new Date(row.created_at),
        label: row.label,
        sha256: row.sha256,
        visibility: 'public',
        // The baseline's table keeps no names.
        name: '',
        ...(row.width === null ? {} : { width: row.width, height: row.height ?? 0 }),
      });
    });
  },
  uploadAsset: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  replaceAsset: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  listAssets: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  deleteAsset: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  batchDeleteAssets: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  getWorkspaceUsage: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  updateAsset: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  createSignedUrl: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  revokeSignedUrls: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  getWorkspacePolicy: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  setWorkspacePolicy: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  watchAssets: (call) => call.destroy(refusal(status.UNIMPLEMENTED, 'not in the baseline')),
  listAssetChanges: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  listAssetVersions: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  readAssetVersion: (call) => call.destroy(refusal(status.UNIMPLEMENTED, 'not in the baseline')),
  restoreAssetVersion: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  listTrash: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  restoreAsset: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
  purgeAsset: (_call, callback) => callback(refusal(status.UNIMPLEMENTED, 'not in the baseline'), null),
};

// One asset to read, the same shape as an uploaded 1x1 PNG in ours.
const now = Date.now();
const seed: AssetRow = {
  id: `as_${ulid().toLowerCase()}`,
  workspace: process.env.SEED_WORKSPACE ?? 'bench',
  label: 'bench',
  blob_id: `bl_${ulid().toLowerCase()}`,
  blob_key: 'bench/seed',
  type: 'image/png',
  size: 68,
  sha256: 'f'.repeat(64),
  width: 1,
  height: 1,
  created_at: now,
  uploaded_at: now,
  version: 1,
};
await store.insertAsset(seed);

const server = new Server();
server.addService(AssetServiceService, handlers);
server.bindAsync(`${process.env.HOST ?? '127.0.0.1'}:${process.env.GRPC_PORT ?? 0}`, ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  console.log(`ready grpc=127.0.0.1:${port} asset=${seed.id}`);
});
process.once('SIGTERM', () => server.tryShutdown(() => void store.close().then(() => process.exit(0))));
