// `switchyard token --workspace W [--subject S] [--scope "..."] [--ttl 1h]`
// Prints one line: a bearer token that a service started with the same
// environment (AUTH_SECRET, or the secret kept in DATA_DIR) accepts.
import { SCOPES, signToken, WORKSPACE_PATTERN } from '@switchyard/core';
import { parseCommandArgs, parseDuration, UsageError, type CommandOutput } from '@switchyard/runtime';
import { resolveAuthSecret } from '../auth-secret.js';
import { loadServiceConfig } from '../config.js';

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
  const workspace = values.workspace;
  if (!workspace) throw new UsageError(`--workspace is required\n${TOKEN_USAGE}`);
  if (!WORKSPACE_PATTERN.test(workspace))
    throw new UsageError(`--workspace ${JSON.stringify(workspace)} is not a workspace name (${WORKSPACE_PATTERN.source})`);
  const scopes = values.scope.split(/\s+/).filter(Boolean);
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0) throw new UsageError(`unknown scope ${unknown.join(', ')}: choose from ${SCOPES.join(' ')}`);
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
