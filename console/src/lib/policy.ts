// The workspace's upload policy, as far as this token may read it (GET
// /v1/workspace/policy needs workspace:admin). Uploads are checked against it
// before sending; the server checks again (by the sniffed type) either way.
import { signal } from '@preact/signals';
import { errorText, type Api, type WorkspacePolicy } from './api.js';
import { formatBytes } from './format.js';
import { typeAllowed } from './asset-types.js';
import { missingScope, onSessionEnd } from './session.js';

export type PolicyState =
  | { readonly kind: 'loading' }
  | { readonly kind: 'known'; readonly policy: WorkspacePolicy }
  | { readonly kind: 'unknown'; readonly reason: string };

export const policyState = signal<PolicyState>({ kind: 'loading' });

export async function loadPolicy(api: Api): Promise<void> {
  const missing = missingScope('workspace:admin');
  if (missing) {
    policyState.value = {
      kind: 'unknown',
      reason: `Reading the policy needs the workspace:admin scope; the server still checks every file.`,
    };
    return;
  }
  try {
    policyState.value = { kind: 'known', policy: await api.getWorkspacePolicy() };
  } catch (error) {
    const text = errorText(error);
    if (text !== undefined)
      policyState.value = { kind: 'unknown', reason: `The policy could not be read (${text}); the server still checks every file.` };
  }
}

export function setKnownPolicy(policy: WorkspacePolicy): void {
  policyState.value = { kind: 'known', policy };
}

/** Why the policy refuses a file before it is sent, or undefined. The type is the browser's guess from the name: a pre-check only. */
export function policyRefusal(file: File): string | undefined {
  const state = policyState.value;
  if (state.kind !== 'known') return undefined;
  const { maxUploadBytes, allowedTypes } = state.policy;
  if (file.size > maxUploadBytes)
    return `Too large: ${formatBytes(file.size)}, the workspace allows at most ${formatBytes(maxUploadBytes)}.`;
  if (file.type !== '' && !typeAllowed(file.type, allowedTypes))
    return `Type ${file.type} is not allowed here (allowed: ${allowedTypes.join(', ')}).`;
  return undefined;
}

onSessionEnd(() => (policyState.value = { kind: 'loading' }));
