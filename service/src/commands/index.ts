export { serviceCommand, SERVICE_USAGE } from './service.js';
export { tokenCommand, TOKEN_USAGE } from './token.js';
export { migrateCommand, MIGRATE_USAGE } from './migrate.js';
export { gcCommand, GC_USAGE } from './gc.js';
export { backfillMetadataCommand, BACKFILL_USAGE } from './backfill-metadata.js';
export { keysCommand, KEYS_USAGE } from './keys.js';
