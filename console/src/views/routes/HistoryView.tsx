// The route table's history: every revision, newest first, with its time,
// actor (the token's subject), owner and its changes, read in windows of
// revisions from the change log. New revisions join at the top as the live
// table reports them. Every revision but the current one can be restored:
// its plan first, then a new revision whose table equals it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText, type Api } from '../../lib/api.js';
import { announce } from '../../lib/announce.js';
import { formatDate } from '../../lib/format.js';
import { useOpenings } from '../../lib/hooks.js';
import { missingScope } from '../../lib/session.js';
import { Modal } from '../../ui/Modal.js';
import { ScopeNote } from '../../ui/ScopeNote.js';
import { readRevisions, REVISIONS_PER_WINDOW, type Revision } from './history.js';
import { counts, PlanPanel } from './PlanPanel.js';
import { RouteChangeList } from './RouteChangeList.js';

export interface HistoryViewProps {
  readonly api: Api;
  /** The live table's revision, null until it is whole. */
  readonly revision: number | null;
  readonly fallbackFocus: () => HTMLElement | null;
}

export function HistoryView({ api, revision, fallbackFocus }: HistoryViewProps) {
  const [revisions, setRevisions] = useState<readonly Revision[]>([]);
  /** The history is read from here on (exclusive); 0 once it reaches the start. */
  const [from, setFrom] = useState<number | null>(null);
  const [newest, setNewest] = useState<number | null>(null);
  const [loading, setLoading] = useState(false);
  const [problem, setProblem] = useState('');
  const [restoring, setRestoring] = useState<number | null>(null);
  const [openings, opened] = useOpenings();
  const refused = missingScope('routes:write');
  const reading = useRef(Promise.resolve());

  // One read at a time, in order: the first window, then each newer revision the live table reports.
  function queue(read: () => Promise<void>) {
    reading.current = reading.current.then(read).catch((error: unknown) => setProblem(errorText(error, 'Reading the history') ?? ''));
  }

  // Read inside queued reads, which run after later renders: refs, not the render's values.
  const newestRead = useRef<number | null>(null);
  const fromRead = useRef<number | null>(null);

  useEffect(() => {
    if (revision === null) return;
    queue(async () => {
      const shownTo = newestRead.current;
      if (shownTo === null) {
        const start = Math.max(0, revision - REVISIONS_PER_WINDOW);
        setLoading(true);
        setRevisions(await readRevisions(api, start, revision));
        setLoading(false);
        fromRead.current = start;
        setFrom(start);
      } else if (revision > shownTo) {
        const newer = await readRevisions(api, shownTo, revision);
        setRevisions((shown) => [...newer, ...shown]);
      } else return;
      newestRead.current = revision;
      setNewest(revision);
    });
  }, [revision]);

  function older() {
    queue(async () => {
      const end = fromRead.current;
      if (!end) return;
      const start = Math.max(0, end - REVISIONS_PER_WINDOW);
      setLoading(true);
      try {
        const read = await readRevisions(api, start, end);
        setRevisions((shown) => [...shown, ...read]);
        fromRead.current = start;
        setFrom(start);
      } finally {
        setLoading(false);
      }
    });
  }

  const current = newest ?? revision;
  return (
    <section class="panel" aria-labelledby="history-title">
      <div class="panel-head">
        <h2 id="history-title">History</h2>
        {current !== null && <span class="muted">Now at revision {current}</span>}
      </div>
      {problem && <p class="callout callout-error">{problem}</p>}
      {newest === null ? (
        <p class="loading">Loading…</p>
      ) : revisions.length === 0 ? (
        <div class="empty">
          <h3>No changes yet</h3>
          <p>Every create, update, delete, import and restore appears here as a revision.</p>
        </div>
      ) : (
        <ol class="history" aria-label="Revisions, newest first">
          {revisions.map((entry) => (
            <li key={entry.revision} class="revision">
              <div class="revision-head">
                <h3 id={`revision-${entry.revision}`}>Revision {entry.revision}</h3>
                <span class="muted">
                  <time dateTime={entry.time}>{formatDate(entry.time)}</time> · by {entry.actor || 'an unnamed token'} ·{' '}
                  {ownersText(entry.owners)}
                </span>
                {entry.revision !== current && (
                  <button
                    type="button"
                    disabled={!!refused}
                    aria-describedby={refused ? 'history-scope' : undefined}
                    onClick={() => (opened(), setRestoring(entry.revision))}
                  >
                    Restore this revision<span class="visually-hidden"> ({entry.revision})</span>
                  </button>
                )}
              </div>
              <RouteChangeList changes={entry.changes} />
            </li>
          ))}
        </ol>
      )}
      <ScopeNote id="history-scope" reason={refused} />
      {from !== null && from > 0 && (
        <button type="button" disabled={loading} onClick={older}>
          {loading ? 'Loading…' : `Show older revisions (before ${from + 1})`}
        </button>
      )}
      {restoring !== null && (
        <Modal
          key={openings}
          title={`Restore revision ${restoring}?`}
          role="alertdialog"
          onClose={() => setRestoring(null)}
          fallbackFocus={fallbackFocus}
        >
          <p>
            Restoring writes a new revision whose table (every owner's routes) equals revision {restoring}'s. These are the changes it would
            make:
          </p>
          <PlanPanel
            focusCancel
            plan={() => api.rollbackRoutes({ revision: restoring, dryRun: true })}
            write={(expectedRevision) => api.rollbackRoutes({ revision: restoring, expectedRevision })}
            confirmLabel="Restore"
            onCancel={() => setRestoring(null)}
            onDone={(result) => {
              announce(`Restored revision ${restoring} as revision ${result.revision}: ${counts(result, true)}.`);
              setRestoring(null);
            }}
          />
        </Modal>
      )}
    </section>
  );
}

function ownersText(owners: readonly string[]): string {
  const named = owners.filter(Boolean);
  if (named.length === 0) return 'no owner';
  return `owner ${named.join(', ')}${owners.includes('') ? ' and routes without one' : ''}`;
}
