// The end-to-end gRPC suite on the embedded default: SQLite and files on disk.
import { defineServiceSuite } from './service-suite.js';
import { sqliteDiskTarget } from './support/storage-targets.js';

defineServiceSuite(await sqliteDiskTarget());
