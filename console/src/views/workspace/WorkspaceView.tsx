// The workspace view: the token's identity, usage, the policy editor and the API keys.
import { useViewApi } from '../../lib/hooks.js';
import { claims } from '../../lib/session.js';
import { KeysPanel } from './KeysPanel.js';
import { PolicyEditor } from './PolicyEditor.js';
import { UsagePanel } from './UsagePanel.js';

export function WorkspaceView() {
  const { api } = useViewApi();
  const current = claims.value!;
  return (
    <div class="view workspace-view">
      <h1 tabIndex={-1}>Workspace {current.workspace}</h1>
      <div class="workspace-grid">
        <UsagePanel api={api} />
        <section class="panel" aria-labelledby="token-title">
          <h2 id="token-title">Your token</h2>
          <dl class="facts">
            <dt>Workspace</dt>
            <dd>{current.workspace}</dd>
            <dt>Subject</dt>
            <dd>{current.subject || <span class="muted">none</span>}</dd>
            <dt>Scopes</dt>
            <dd>{current.scopes.join(' ') || <span class="muted">none</span>}</dd>
            <dt>Expires</dt>
            <dd>{current.expiresAt === undefined ? 'never' : new Date(current.expiresAt * 1000).toLocaleString()}</dd>
          </dl>
        </section>
      </div>
      <PolicyEditor api={api} />
      <KeysPanel api={api} />
    </div>
  );
}
