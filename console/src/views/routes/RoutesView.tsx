// The routes view: the live table, the create/edit form, the match tester,
// and delete with a confirmation; its History section (/console/routes/history)
// with restore; Export and Import of route files (routes as code) in both.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { errorText } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { useOpenings, useViewApi } from '../../lib/hooks.js';
import { currentSection, hrefOf, navigate } from '../../lib/router.js';
import { claims, missingScope } from '../../lib/session.js';
import { Confirm } from '../../ui/Confirm.js';
import { ScopeNote } from '../../ui/ScopeNote.js';
import { HistoryView } from './HistoryView.js';
import { ImportDialog } from './ImportDialog.js';
import { openLiveTable, type Route } from './live-table.js';
import { MatchTester } from './MatchTester.js';
import { RouteForm } from './RouteForm.js';
import { RoutesTable } from './RoutesTable.js';
import { exportRoutes } from './routes-as-code.js';

const SECTIONS = [
  { section: '', title: 'Table' },
  { section: 'history', title: 'History' },
] as const;

const STATUS_TEXT = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', refused: 'Not watching' } as const;

export function RoutesView() {
  const { signal, api } = useViewApi();
  const table = useMemo(() => openLiveTable(signal), []);
  useEffect(() => () => table.close(), []);
  const [editing, setEditing] = useState<Route | null>(null);
  const [deleting, setDeleting] = useState<Route | null>(null);
  const [openings, opened] = useOpenings();
  const heading = useRef<HTMLHeadingElement>(null);
  const routes = table.routes.value;
  // The revision of the first whole table: what came after is news.
  const openedAt = useRef<number | null>(null);
  if (openedAt.current === null && table.status.value === 'live') openedAt.current = table.revision.value;
  const status = table.status.value;
  const section = currentSection.value === 'history' ? 'history' : '';
  const [importing, setImporting] = useState(false);
  const [exporting, setExporting] = useState(false);
  const refused = missingScope('routes:write');

  async function download() {
    setExporting(true);
    try {
      const count = await exportRoutes(api, `routes-${claims.value?.workspace ?? 'workspace'}.yaml`);
      announce(`Exported ${count} route${count === 1 ? '' : 's'} as YAML.`);
    } catch (error) {
      const text = errorText(error, 'Exporting the routes');
      if (text) announceError(text);
    } finally {
      setExporting(false);
    }
  }

  // A route deleted elsewhere while being edited: the form goes back to creating.
  useEffect(() => {
    if (editing && !routes.some((route) => route.id === editing.id)) setEditing(null);
  }, [routes]);

  async function remove(route: Route) {
    try {
      await api.deleteRoute(route.id);
      announce(`Deleted route ${route.method} ${route.path}.`);
      setDeleting(null);
      if (editing?.id === route.id) setEditing(null);
      return true;
    } catch (error) {
      const text = errorText(error, 'Deleting the route');
      if (text) announceError(text);
      return false;
    }
  }

  return (
    <div class="view routes-view">
      <div class="view-head">
        <h1 ref={heading} tabIndex={-1}>
          Routes
        </h1>
        <span class={`live live-${status}`} title={table.problem.value || undefined}>
          <span class="live-dot" aria-hidden="true" />
          {STATUS_TEXT[status]}
          {status === 'live' && ` · revision ${table.revision.value}`}
        </span>
      </div>
      <div class="toolbar routes-toolbar">
        <nav aria-label="Routes">
          <ul class="section-nav">
            {SECTIONS.map(({ section: name, title }) => (
              <li key={name}>
                <a
                  href={hrefOf('routes', undefined, name)}
                  aria-current={section === name ? 'page' : undefined}
                  onClick={(event) => {
                    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
                    event.preventDefault();
                    navigate(hrefOf('routes', undefined, name));
                  }}
                >
                  {title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="actions">
          <button type="button" disabled={exporting} onClick={() => void download()}>
            Export
          </button>
          <button
            type="button"
            disabled={!!refused}
            aria-describedby={refused ? 'import-scope' : undefined}
            onClick={() => setImporting(true)}
          >
            Import…
          </button>
        </div>
      </div>
      <ScopeNote id="import-scope" reason={refused} />
      {table.problem.value && status === 'refused' && <p class="callout callout-error">{table.problem.value}</p>}
      {section === 'history' ? (
        <HistoryView api={api} revision={status === 'live' ? table.revision.value : null} fallbackFocus={() => heading.current} />
      ) : (
        <>
          <div class="routes-grid">
            <RouteForm api={api} editing={editing} routes={routes} onDone={() => setEditing(null)} />
            <MatchTester api={api} revision={table.revision.value} />
          </div>
          <RoutesTable
            routes={routes}
            openedAt={openedAt.current}
            onEdit={setEditing}
            onDelete={(route) => (opened(), setDeleting(route))}
          />
        </>
      )}
      {importing && <ImportDialog api={api} onClose={() => setImporting(false)} fallbackFocus={() => heading.current} />}
      {deleting && (
        <Confirm
          key={openings}
          title={`Delete ${deleting.method} ${deleting.path}?`}
          confirmLabel="Delete"
          onConfirm={() => remove(deleting)}
          onClose={() => setDeleting(null)}
          fallbackFocus={() => heading.current}
        >
          <p>
            Requests to {deleting.method} {deleting.path} will no longer reach <span class="mono">{deleting.handler}</span>.
          </p>
        </Confirm>
      )}
    </div>
  );
}
