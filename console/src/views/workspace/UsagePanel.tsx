// What the workspace holds (GET /v1/workspace/usage): assets, the bytes of
// their current files, routes, and apart from those the bytes of the versions
// replaces kept and of the trash (each stored, and counted, in full).
import { useEffect, useState } from 'preact/hooks';
import { errorText, type Api, type WorkspaceUsage } from '../../lib/api.js';
import { formatBytes } from '../../lib/format.js';
import { missingScope } from '../../lib/session.js';

export function UsagePanel({ api }: { readonly api: Api }) {
  const [usage, setUsage] = useState<WorkspaceUsage | null>(null);
  const [problem, setProblem] = useState('');
  const refused = missingScope('assets:read');

  useEffect(() => {
    if (refused) return;
    api.getWorkspaceUsage().then(setUsage, (error: unknown) => setProblem(errorText(error, 'Reading the usage') ?? ''));
  }, []);

  return (
    <section class="panel" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      {refused && <p class="scope-note">{refused}</p>}
      {problem && <p class="callout callout-error">{problem}</p>}
      {!refused && !problem && usage === null && <p class="loading">Loading…</p>}
      {usage && (
        <dl class="stats">
          <div>
            <dt>Assets</dt>
            <dd>{usage.assets.toLocaleString()}</dd>
          </div>
          <div>
            <dt>Stored</dt>
            <dd>{formatBytes(usage.bytes)}</dd>
          </div>
          <div>
            <dt>Routes</dt>
            <dd>{usage.routes.toLocaleString()}</dd>
          </div>
          <div>
            <dt>Versions</dt>
            <dd>{formatBytes(usage.versionBytes)}</dd>
          </div>
          <div>
            <dt>Trash</dt>
            <dd>{formatBytes(usage.trashBytes)}</dd>
          </div>
        </dl>
      )}
      {usage && (
        <p class="help">
          Stored counts current files only: replaced files kept as versions, and the trash, are counted apart until the retention purges
          them.
        </p>
      )}
    </section>
  );
}
