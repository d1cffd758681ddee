import { CHANGE_LOGS, MAX_FEED_IDS, WORKSPACE_PATTERN, type ChangeLogName } from '@switchyard/core';

/**
 * Where a deployment's route and asset changes travel: `switchyard.routes.`
 * and the database's name (the service's feed-channel.ts); a gateway that
 * follows every deployment on its broker subscribes to this prefix and a
 * wildcard (`FEED_CHANNEL_PATTERN`).
 */
export const FEED_CHANNEL_PREFIX = 'switchyard.routes.';
/** Every deployment's change channel, as a Redis PSUBSCRIBE pattern and a NATS subject alike. */
export const FEED_CHANNEL_PATTERN = `${FEED_CHANNEL_PREFIX}*`;

export interface FeedMessage {
  readonly workspace: string;
  readonly revision: number;
  readonly log: ChangeLogName;
  /** The ids the revision changed, when the message names them. */
  readonly changed?: readonly string[] | undefined;
}

/** Ids as records carry them (`as_…`, `rt_…`): a message naming anything else names nothing. */
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A message: the workspace and the revision its write committed, as JSON
 * (readable with `redis-cli subscribe` or `nats sub`); an asset revision says
 * `"log": "assets"`, a route revision says nothing more (as before there were
 * asset changes, so instances of either version read each other's), and
 * `"changed"` lists the ids it changed when there are at most MAX_FEED_IDS.
 */
export function encodeRevision(workspace: string, revision: number, log: ChangeLogName = 'routes', changed?: readonly string[]): string {
  const named = changed !== undefined && changed.length > 0 && changed.length <= MAX_FEED_IDS ? { changed } : {};
  return JSON.stringify(log === 'routes' ? { workspace, revision, ...named } : { workspace, revision, log, ...named });
}

/** The message's workspace, revision, log and ids, or undefined for anything else on the channel (it is ignored). */
export function decodeRevision(text: string): FeedMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { workspace, revision, log = 'routes', changed } = value as Record<string, unknown>;
  if (typeof workspace !== 'string' || !WORKSPACE_PATTERN.test(workspace)) return undefined;
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 1) return undefined;
  if (!isLog(log)) return undefined;
  return { workspace, revision, log, changed: idsOf(changed) };
}

function isLog(value: unknown): value is ChangeLogName {
  return (CHANGE_LOGS as readonly unknown[]).includes(value);
}

/** A well-formed list of ids, or undefined: a list that is not one says nothing of which ids changed. */
function idsOf(value: unknown): readonly string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_FEED_IDS) return undefined;
  return value.every((id) => typeof id === 'string' && ID_PATTERN.test(id)) ? (value as string[]) : undefined;
}
