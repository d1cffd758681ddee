// `npm run -s token -- --workspace W [--subject S] [--scope "..."] [--ttl 1h]`
// Prints one line: a bearer token that a service started with the same
// environment (AUTH_SECRET, or the secret kept in DATA_DIR) accepts.
import { parseArgs } from 'node:util';
import { SCOPES, WORKSPACE_PATTERN } from '../../lib/src/auth/principal.js';
import { signToken } from '../../lib/src/auth/tokens.js';
import { isSwitchyardError } from '../../lib/src/errors.js';
import { resolveAuthSecret } from './auth-secret.js';
import { loadServiceConfig } from './config.js';
import { parseDuration } from './duration.js';

const USAGE = `usage: npm run -s token -- --workspace W [--subject S] [--scope "${SCOPES.join(' ')}"] [--ttl 1h]`;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        workspace: { type: 'string' },
        subject: { type: 'string', default: 'dev' },
        scope: { type: 'string', default: SCOPES.join(' ') },
        ttl: { type: 'string', default: '1h' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (!values.workspace) fail(`--workspace is required\n${USAGE}`);
  if (!WORKSPACE_PATTERN.test(values.workspace)) fail(`--workspace ${JSON.stringify(values.workspace)} is not a workspace name (${WORKSPACE_PATTERN.source})`);
  const scopes = values.scope.split(/\s+/).filter(Boolean);
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0) fail(`unknown scope ${unknown.join(', ')}: choose from ${SCOPES.join(' ')}`);

  const config = loadServiceConfig(process.env);
  if (config.auth.kind === 'jwks') {
    fail('AUTH_JWKS_URL is set: tokens come from that identity provider; this command can only mint tokens for AUTH_SECRET');
  }
  const ttlSeconds = parseDuration(values.ttl);
  const secret = await resolveAuthSecret(config);
  const token = await signToken(secret, { subject: values.subject, workspace: values.workspace, scopes: scopes.join(' '), ttlSeconds });
  process.stdout.write(`${token}\n`);
}

main().catch((error: unknown) => fail(isSwitchyardError(error) ? error.message : String(error)));
