// `switchyard token --workspace W [--subject S] [--scope "..."] [--ttl 1h]`
// Prints one line: a bearer token that a service started with the same
// environment (AUTH_SECRET, or the secret kept in DATA_DIR) accepts.
import { SCOPES, signToken } from '@switchyard/core';
import { parseCommandArgs, parseDuration, UsageError, type CommandOutput } from '@switchyard/runtime';
import { resolveAuthSecret } from '../auth-secret.js';
import { loadServiceConfig } from '../config.js';
import { scopesOption, workspaceOption } from './command-options.js';

export const TOKEN_USAGE = `usage: switchyard token --workspace W [--subject S] [--scope "${SCOPES.join(' ')}"] [--ttl 1h]

Prints one bearer token (HS256, signed with AUTH_SECRET or the secret kept in
DATA_DIR) that a server started with the same environment accepts.
  --workspace W   the tenant the token is for (required)
  --subject S     who the caller is (default: dev)
  --scope "..."   space-separated scopes (default: all of them)
  --ttl 1h        lifetime: 30s, 15m, 1h, 7d (default: 1h)`;

export async function tokenCommand(args: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<void> {
  const values = parseCommandArgs(
    args,
    {
      workspace: { type: 'string' },
      subject: { type: 'string', default: 'dev' },
      scope: { type: 'string', default: SCOPES.join(' ') },
      ttl: { type: 'string', default: '1h' },
    },
    TOKEN_USAGE,
  );
  if (values.help) return void output.log(TOKEN_USAGE);
  const workspace = workspaceOption(values.workspace, TOKEN_USAGE);
  const scopes = scopesOption(values.scope);
  const ttlSeconds = parseDuration(values.ttl);

  const config = loadServiceConfig(env);
  if (config.auth.kind === 'jwks') {
    throw new UsageError(
      'AUTH_JWKS_URL is set: tokens come from that identity provider; this command can only mint tokens for AUTH_SECRET',
    );
  }
  const secret = await resolveAuthSecret(config);
  const token = await signToken(secret, { subject: values.subject, workspace, scopes: scopes.join(' '), ttlSeconds });
  output.log(token);
}
