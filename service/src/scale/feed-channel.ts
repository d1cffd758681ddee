import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { FEED_CHANNEL_PREFIX } from '@switchyard/runtime';
import type { DatabaseConfig } from '../stores/storage-config.js';

/**
 * The Redis channel or NATS subject a deployment's route and asset changes
 * travel on: `switchyard.routes.<database>` (the name predates asset changes;
 * messages name their log); API key revocations travel beside them on
 * `switchyard.keys.<database>`. Instances that share a database share the
 * channel, with no setting of its own; two deployments on one broker stay
 * apart as long as their databases are named apart. The MySQL database name
 * is used as written in its URL (every instance names it the same; hosts may
 * differ, e.g. a DNS name and an address); a SQLite file by a hash of its
 * absolute path. Characters NATS treats as separators or wildcards become `_`.
 */
export function feedChannel(database: DatabaseConfig, topic: 'routes' | 'keys' = 'routes'): string {
  const name =
    database.kind === 'mysql'
      ? decodeURIComponent(new URL(database.url).pathname.slice(1))
      : `sqlite-${createHash('sha256').update(resolve(database.file)).digest('hex').slice(0, 16)}`;
  return `${topic === 'routes' ? FEED_CHANNEL_PREFIX : `switchyard.${topic}.`}${name.replace(/[^A-Za-z0-9_-]/g, '_') || 'default'}`;
}
