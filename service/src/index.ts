// The Switchyard gRPC service: @switchyard/core over real storage, served with grpc-js.

export { startService } from './app.js';
export type { ServiceHandle, StartServiceOptions } from './app.js';
export { loadServiceConfig, loadStandaloneServiceConfig, serviceConfigFrom, serviceEnv, DEFAULTS as SERVICE_DEFAULTS } from './config.js';
export type { ServiceConfig, ServiceEnv, AuthConfig } from './config.js';
export { SERVICE_VARIABLE_DOCS } from './config-docs.js';
export { createServiceLogger } from './logger.js';
export { openStorage } from './stores/open-storage.js';
export type { Storage, DatabaseStorage, OpenStorageOptions } from './stores/open-storage.js';
export type { Database } from './stores/schema.js';
export { DEFAULT_STORAGE_TIMEOUT_MS } from './stores/storage-config.js';
export type { StorageConfig, DatabaseConfig, BlobStoreConfig } from './stores/storage-config.js';
export { createMigrator, migrateToLatest } from './migrations/index.js';
export { AUTH_SECRET_FILE, resolveAuthSecret } from './auth-secret.js';
export { URL_SIGNING_KEY_FILE, resolveUrlSigningKeys, parseUrlSigningKeys } from './url-signing-keys.js';
export type { ConfiguredUrlKey } from './url-signing-keys.js';
export { ERROR_DETAILS_KEY, RETRY_AFTER_MS_KEY, toGrpcStatus } from './grpc/error-mapping.js';
export type { GrpcErrorStatus } from './grpc/error-mapping.js';
export {
  serviceCommand,
  SERVICE_USAGE,
  tokenCommand,
  TOKEN_USAGE,
  migrateCommand,
  MIGRATE_USAGE,
  gcCommand,
  GC_USAGE,
  backfillMetadataCommand,
  BACKFILL_USAGE,
  keysCommand,
  KEYS_USAGE,
} from './commands/index.js';
