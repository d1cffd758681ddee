import { createHash } from 'node:crypto';
import type { UrlSigningKey } from '@switchyard/core';
import { no, type Refusal } from '@switchyard/runtime';
import type { ServiceConfig } from './config.js';
import { dataDirSecret, MIN_DATA_DIR_SECRET_LENGTH } from './data-dir-secret.js';

export const URL_SIGNING_KEY_FILE = 'url-signing-key';

/** A key as URL_SIGNING_KEYS names it: an id and a secret of at least 32 characters. */
export interface ConfiguredUrlKey {
  readonly id: string;
  readonly secret: string;
}

/**
 * URL_SIGNING_KEYS: `id:secret` pairs, comma-separated; the first signs, all
 * verify. Rotation: put a new pair first, keep the old one until the longest
 * link it signed (at most 7 days) has expired, then drop it.
 */
export function parseUrlSigningKeys(raw: string): readonly ConfiguredUrlKey[] | Refusal {
  const keys: ConfiguredUrlKey[] = [];
  for (const entry of raw.split(',')) {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, colon).trim();
    const secret = entry.slice(colon + 1).trim();
    if (colon < 0 || !/^[A-Za-z0-9_-]{1,32}$/.test(id))
      return no('is not a comma-separated list of id:secret pairs (ids of 1-32 letters, digits, _ or -)');
    if (secret.length < MIN_DATA_DIR_SECRET_LENGTH)
      return no(`has a secret shorter than ${MIN_DATA_DIR_SECRET_LENGTH} characters (key ${id})`);
    if (keys.some((key) => key.id === id)) return no(`names key ${id} twice`);
    keys.push({ id, secret });
  }
  return keys;
}

/**
 * The url signing keys of this deployment: URL_SIGNING_KEYS when set, else
 * one key kept in `DATA_DIR/url-signing-key`, generated on first use, whose id
 * is derived from it (so a regenerated key never verifies the old one's links).
 */
export async function resolveUrlSigningKeys(config: Pick<ServiceConfig, 'urlSigningKeys' | 'dataDir'>): Promise<UrlSigningKey[]> {
  const keys = config.urlSigningKeys ?? [await generatedKey(config.dataDir)];
  return keys.map(({ id, secret }) => ({ id, secret: Buffer.from(secret, 'utf8') }));
}

async function generatedKey(dataDir: string): Promise<ConfiguredUrlKey> {
  const secret = await dataDirSecret(dataDir, URL_SIGNING_KEY_FILE);
  return { id: `d${createHash('sha256').update(secret).digest('base64url').slice(0, 8)}`, secret };
}
