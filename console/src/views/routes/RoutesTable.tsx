// The live route table in pages, with a quick filter, and Edit and Delete
// per route. Rows written since the view opened are marked for a moment.
import { useEffect, useState } from 'preact/hooks';
import { formatDate } from '../../lib/format.js';
import { missingScope } from '../../lib/session.js';
import type { Route } from './live-table.js';

const PAGE_SIZE = 25;

export interface RoutesTableProps {
  readonly routes: readonly Route[];
  /** The table's revision when the view opened: rows written after it are marked for a moment. */
  readonly openedAt: number | null;
  readonly onEdit: (route: Route) => void;
  readonly onDelete: (route: Route) => void;
}

export function RoutesTable({ routes, openedAt, onEdit, onDelete }: RoutesTableProps) {
  const [page, setPage] = useState(0);
  const [filter, setFilter] = useState('');
  const refused = missingScope('routes:write');
  const needle = filter.trim().toLowerCase();
  const shown = needle
    ? routes.filter((route) =>
        `${route.method} ${route.path} ${route.handler} ${route.middleware.join(' ')}`.toLowerCase().includes(needle),
      )
    : routes;
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  useEffect(() => setPage(0), [needle]);
  const rows = shown.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE);

  return (
    <section class="panel" aria-labelledby="routes-table-title">
      <div class="panel-head">
        <h2 id="routes-table-title">Route table</h2>
        <div class="field field-inline">
          <label for="routes-filter">Filter routes</label>
          <input id="routes-filter" type="search" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} />
        </div>
      </div>
      {routes.length === 0 ? (
        <div class="empty">
          <h3>No routes yet</h3>
          <p>Create one with the form, or through the API: it appears here at once.</p>
        </div>
      ) : shown.length === 0 ? (
        <div class="empty">
          <h3>No route matches "{filter}"</h3>
        </div>
      ) : (
        <table class="routes">
          <caption class="visually-hidden">
            Routes, oldest first, page {current + 1} of {pages}
          </caption>
          <thead>
            <tr>
              <th scope="col">Method</th>
              <th scope="col">Path</th>
              <th scope="col">Middleware</th>
              <th scope="col">Handler</th>
              <th scope="col">Updated</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((route) => (
              // Keyed by revision too: a row written again is a new row, so its mark plays again.
              <tr key={`${route.id}@${route.revision}`} class={openedAt !== null && route.revision > openedAt ? 'row-fresh' : ''}>
                <td>
                  <span class={`method method-${route.method.toLowerCase()}`}>{route.method}</span>
                </td>
                <td class="mono">{route.path}</td>
                <td>{route.middleware.length > 0 ? route.middleware.join(', ') : <span class="muted">none</span>}</td>
                <td class="mono">{route.handler}</td>
                <td>
                  <time dateTime={route.updatedAt.toISOString()}>{formatDate(route.updatedAt.toISOString())}</time>
                </td>
                <td class="row-actions">
                  <button
                    type="button"
                    disabled={!!refused}
                    aria-label={`Edit ${route.method} ${route.path}`}
                    onClick={() => onEdit(route)}
                  >
                    Edit
                  </button>
                  <button
                    type="button"
                    class="danger"
                    disabled={!!refused}
                    aria-label={`Delete ${route.method} ${route.path}`}
                    onClick={() => onDelete(route)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages > 1 && (
        <nav class="pager" aria-label="Route table pages">
          <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous page
          </button>
          <span>
            Page {current + 1} of {pages} ({shown.length} routes)
          </span>
          <button type="button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
            Next page
          </button>
        </nav>
      )}
    </section>
  );
}
