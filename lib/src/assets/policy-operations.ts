import { requireScope, type Principal } from '../auth/principal.js';
import type { AssetStore } from '../ports/asset-store.js';
import { effectivePolicy, validatePolicy, type WorkspacePolicy, type WorkspacePolicyInput } from './workspace-policy.js';

interface Deps {
  readonly assetStore: AssetStore;
  readonly maxUploadBytes: number;
}

/** The policy uploads of the workspace are held to (no scope check: for the upload paths). */
export async function policyInForce(deps: Deps, workspace: string): Promise<WorkspacePolicy> {
  return effectivePolicy(await deps.assetStore.getPolicy(workspace), deps.maxUploadBytes);
}

export async function getPolicy(deps: Deps, principal: Principal): Promise<WorkspacePolicy> {
  requireScope(principal, 'workspace:admin');
  return policyInForce(deps, principal.workspace);
}

export async function setPolicy(deps: Deps, principal: Principal, input: WorkspacePolicyInput): Promise<WorkspacePolicy> {
  requireScope(principal, 'workspace:admin');
  const stored = validatePolicy(input, deps.maxUploadBytes);
  await deps.assetStore.setPolicy(principal.workspace, stored);
  return effectivePolicy(stored, deps.maxUploadBytes);
}
