// `switchyard keys create|list|revoke --workspace W …`: API keys made on the
// server's own environment and database, for the first key of a workspace
// (before anyone holds one) and for operators.
import {
  createApiKeys,
  createPrincipal,
  createUlidSource,
  SCOPES,
  systemTime,
  type ApiKey,
  type ApiKeys,
  type KeyService,
  type Principal,
} from '@switchyard/core';
import { createLogger, parseCommandArgs, parseDuration, UsageError, type CommandOutput } from '@switchyard/runtime';
import { loadServiceConfig } from '../config.js';
import { openKeyFeed } from '../scale/open-key-feed.js';
import { openCurrentStorage } from './current-storage.js';
import { scopesOption, workspaceOption } from './command-options.js';

export const KEYS_USAGE = `usage: switchyard keys create --workspace W --name N [--scope "${SCOPES.join(' ')}"] --ttl 30d [--created-by S]
       switchyard keys list --workspace W
       switchyard keys revoke --workspace W --id key_…

Manages a workspace's API keys in the database of this environment
(DATABASE_URL, or SQLite in DATA_DIR; run switchyard migrate first).
  create   prints the new key's secret (sy_…) as the one line on stdout, shown
           only now; its id and expiry go to stderr
    --name N         what the key is for (required)
    --scope "..."    space-separated scopes (default: all of them)
    --ttl 30d        lifetime: 30s, 15m, 1h, 7d (required; at most KEY_MAX_TTL, default 365d)
    --created-by S   recorded as the key's creator (default: switchyard-cli)
  list     one line per key: id, state, name, scopes, expiry, last use
  revoke   refuses the key from now on; with EVENTS_URL the other service
           instances are told through its broker at once, else (or while it
           is unreachable) they refuse the key within 5 s`;

const ADMIN = 'switchyard-cli';

export async function keysCommand(args: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<void> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === '-h') return void output.log(KEYS_USAGE);
  if (action !== 'create' && action !== 'list' && action !== 'revoke')
    throw new UsageError(`unknown keys command ${JSON.stringify(action)}\n${KEYS_USAGE}`);
  const values = parseCommandArgs(
    rest,
    {
      workspace: { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string', default: SCOPES.join(' ') },
      ttl: { type: 'string' },
      id: { type: 'string' },
      'created-by': { type: 'string', default: ADMIN },
    },
    KEYS_USAGE,
  );
  if (values.help) return void output.log(KEYS_USAGE);
  const workspace = workspaceOption(values.workspace, KEYS_USAGE);
  const createdBy = values['created-by'].trim();
  if (createdBy === '') throw new UsageError('--created-by must not be empty');
  // The operator holds every scope: a key made here may have any of them.
  const operator = createPrincipal(createdBy, workspace, SCOPES);
  // Validated before the database is opened.
  if (action === 'create') {
    if (!values.name) throw new UsageError(`--name is required\n${KEYS_USAGE}`);
    if (!values.ttl) throw new UsageError(`--ttl is required (keys always expire)\n${KEYS_USAGE}`);
    parseDuration(values.ttl);
  }
  if (action === 'revoke' && !values.id) throw new UsageError(`--id is required\n${KEYS_USAGE}`);
  const config = loadServiceConfig(env);
  const storage = await openCurrentStorage(config.storage);
  // Only a revocation is news to the running instances (a new key is read from the database when first used).
  const feed = action === 'revoke' ? await openKeyFeed(config.scale.events, config.storage.database, createLogger('silent')) : undefined;
  try {
    const apiKeys = createApiKeys(storage.keyStore, systemTime, createUlidSource(), { maxTtlMs: config.keys.maxTtlMs, feed });
    try {
      if (action === 'create') await create(apiKeys.service, operator, values, output);
      else if (action === 'list') await list(apiKeys.service, operator, output);
      else await revoke(apiKeys, operator, values.id ?? '', feed !== undefined, output);
    } finally {
      apiKeys.close();
    }
  } finally {
    await feed?.close();
    await storage.close();
  }
}

async function create(
  keys: KeyService,
  operator: Principal,
  values: { name?: string | undefined; scope: string; ttl?: string | undefined },
  output: CommandOutput,
): Promise<void> {
  const scopes = scopesOption(values.scope);
  const expiresAt = new Date(systemTime.now().getTime() + parseDuration(values.ttl ?? '') * 1000);
  const key = await keys.create(operator, { name: values.name ?? '', scopes, expiresAt });
  output.log(key.secret);
  output.error(`created ${key.id} for ${operator.workspace} (${key.scopes.join(' ')}), expires ${key.expiresAt.toISOString()}`);
}

/** Revokes, then waits until the broker took the news, as the service does: the other instances drop what they cached on hearing it. */
async function revoke(apiKeys: ApiKeys, operator: Principal, id: string, hasFeed: boolean, output: CommandOutput): Promise<void> {
  await apiKeys.service.revoke(operator, id);
  output.log(`revoked ${id}`);
  const published = await apiKeys.published();
  if (!hasFeed) output.error('no EVENTS_URL: other service instances refuse the key within 5 s');
  else if (!published)
    output.error('the events broker (EVENTS_URL) did not take the revocation: other service instances refuse the key within 5 s');
}

async function list(keys: KeyService, operator: Principal, output: CommandOutput): Promise<void> {
  let pageToken = '';
  do {
    const page = await keys.list(operator, { pageSize: 1000, pageToken });
    for (const key of page.keys) output.log(lineOf(key));
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
}

function lineOf(key: ApiKey): string {
  const state = key.revokedAt ? 'revoked' : key.expiresAt <= systemTime.now() ? 'expired' : 'active';
  const lastUsed = key.lastUsedAt ? `last used ${key.lastUsedAt.toISOString()}` : 'never used';
  return `${key.id}  ${state}  ${JSON.stringify(key.name)}  ${key.scopes.join(' ')}  expires ${key.expiresAt.toISOString()}  ${lastUsed}`;
}
