// Options the token and keys commands share: the workspace a credential is for, and the scopes it carries.
import { SCOPES, WORKSPACE_PATTERN } from '@switchyard/core';
import { UsageError } from '@switchyard/runtime';

/** `--workspace W`: required, and a workspace name. */
export function workspaceOption(workspace: string | undefined, usage: string): string {
  if (!workspace) throw new UsageError(`--workspace is required\n${usage}`);
  if (!WORKSPACE_PATTERN.test(workspace))
    throw new UsageError(`--workspace ${JSON.stringify(workspace)} is not a workspace name (${WORKSPACE_PATTERN.source})`);
  return workspace;
}

/** `--scope "..."`: space-separated, each one of SCOPES. */
export function scopesOption(text: string): string[] {
  const scopes = text.split(/\s+/).filter(Boolean);
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0) throw new UsageError(`unknown scope ${unknown.join(', ')}: choose from ${SCOPES.join(' ')}`);
  return scopes;
}
