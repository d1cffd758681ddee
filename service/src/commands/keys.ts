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
  type KeyService,
  type Principal,
} from '@switchyard/core';
import { parseCommandArgs, parseDuration, UsageError, type CommandOutput } from '@switchyard/runtime';
import { loadServiceConfig } from '../config.js';
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
  revoke   refuses the key from now on (other service instances within 5 s)`;

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
  const run = async (keys: KeyService): Promise<void> => {
    if (action === 'create') return create(keys, operator, values, output);
    if (action === 'list') return list(keys, operator, output);
    if (!values.id) throw new UsageError(`--id is required\n${KEYS_USAGE}`);
    await keys.revoke(operator, values.id);
    output.log(`revoked ${values.id}`);
  };
  // Validated before the database is opened.
  if (action === 'create') {
    if (!values.name) throw new UsageError(`--name is required\n${KEYS_USAGE}`);
    if (!values.ttl) throw new UsageError(`--ttl is required (keys always expire)\n${KEYS_USAGE}`);
    parseDuration(values.ttl);
  }
  const config = loadServiceConfig(env);
  const storage = await openCurrentStorage(config.storage);
  try {
    const apiKeys = createApiKeys(storage.keyStore, systemTime, createUlidSource(), { maxTtlMs: config.keys.maxTtlMs });
    await run(apiKeys.service);
    apiKeys.close();
  } finally {
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
