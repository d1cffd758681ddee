// The same end-to-end gRPC suite on MySQL and S3 (s3rver). Skipped only when
// MySQL is unreachable and REQUIRE_MYSQL is unset.
import test from 'ava';
import { defineServiceSuite } from './service-suite.js';
import { mysqlS3Target } from './support/storage-targets.js';

const target = await mysqlS3Target();
if (target) defineServiceSuite(target);
else test.skip('MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () => undefined);
