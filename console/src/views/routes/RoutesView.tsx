// The routes view: the live table, the create/edit form, the match tester,
// and delete with a confirmation.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { errorText } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { useOpenings, useViewApi } from '../../lib/hooks.js';
import { Confirm } from '../../ui/Confirm.js';
import { openLiveTable, type Route } from './live-table.js';
import { MatchTester } from './MatchTester.js';
import { RouteForm } from './RouteForm.js';
import { RoutesTable } from './RoutesTable.js';

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
      {table.problem.value && status === 'refused' && <p class="callout callout-error">{table.problem.value}</p>}
      <div class="routes-grid">
        <RouteForm api={api} editing={editing} routes={routes} onDone={() => setEditing(null)} />
        <MatchTester api={api} revision={table.revision.value} />
      </div>
      <RoutesTable routes={routes} openedAt={openedAt.current} onEdit={setEditing} onDelete={(route) => (opened(), setDeleting(route))} />
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
