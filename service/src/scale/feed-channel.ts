import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { CHANGE_LOGS, WORKSPACE_PATTERN, type ChangeLogName } from '@switchyard/core';
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
  return `switchyard.${topic}.${name.replace(/[^A-Za-z0-9_-]/g, '_') || 'default'}`;
}

/**
 * A message: the workspace and the revision its write committed, as JSON
 * (readable with `redis-cli subscribe` or `nats sub`); an asset revision says
 * `"log": "assets"`, a route revision says nothing more (as before there were
 * asset changes, so instances of either version read each other's).
 */
export function encodeRevision(workspace: string, revision: number, log: ChangeLogName = 'routes'): string {
  return JSON.stringify(log === 'routes' ? { workspace, revision } : { workspace, revision, log });
}

export interface FeedMessage {
  readonly workspace: string;
  readonly revision: number;
  readonly log: ChangeLogName;
}

/** The message's workspace, revision and log, or undefined for anything else on the channel (it is ignored). */
export function decodeRevision(text: string): FeedMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { workspace, revision, log = 'routes' } = value as Record<string, unknown>;
  if (typeof workspace !== 'string' || !WORKSPACE_PATTERN.test(workspace)) return undefined;
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 1) return undefined;
  if (!isLog(log)) return undefined;
  return { workspace, revision, log };
}

function isLog(value: unknown): value is ChangeLogName {
  return (CHANGE_LOGS as readonly unknown[]).includes(value);
}
