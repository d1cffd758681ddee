// The assets view: upload, filters, the virtualized list with selection,
// the detail panel of the asset in the url (?asset=), and batch delete; kept
// live by the watch stream, so changes made elsewhere show within a second
// without the list being read again (scroll, selection and panel stay).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { errorText, type Asset } from '../../lib/api.js';
import { AssetListing } from '../../lib/asset-listing.js';
import { FAMILIES, type TypeFamily } from '../../lib/asset-types.js';
import { announce, announceError } from '../../lib/announce.js';
import { useDebounced, useOpenings, useViewApi } from '../../lib/hooks.js';
import { loadPolicy } from '../../lib/policy.js';
import { searchParams, setSearchParams } from '../../lib/router.js';
import { missingScope } from '../../lib/session.js';
import { jobs, onUploaded } from '../../lib/upload-queue.js';
import { Confirm } from '../../ui/Confirm.js';
import { ScopeNote } from '../../ui/ScopeNote.js';
import { AssetDetail } from './AssetDetail.js';
import { AssetFilters, type FilterValues } from './AssetFilters.js';
import { assetTitle } from './AssetRow.js';
import { AssetTable } from './AssetTable.js';
import { BatchResults, type BatchResult } from './BatchResults.js';
import { createChangeSummary, type SeenChange } from './change-summary.js';
import { openLiveAssets, type AssetChange } from './live-assets.js';
import { LocalWrites, trackWrites } from './local-writes.js';
import { UploadPanel } from './UploadPanel.js';

const BATCH_LIMIT = 1000;
const STATUS_TEXT = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', refused: 'Not watching' } as const;

function filtersOf(params: URLSearchParams): FilterValues {
  const type = params.get('type') ?? '';
  return {
    family: FAMILIES.includes(type as TypeFamily) ? (type as TypeFamily) : '',
    label: params.get('label') ?? '',
    q: params.get('q') ?? '',
  };
}

export function AssetsView() {
  const { signal, api: viewApi } = useViewApi();
  // This tab's writes are recorded: the watch reports them too, and they are not news here.
  const writes = useMemo(() => new LocalWrites(), []);
  const api = useMemo(() => trackWrites(viewApi, writes), [viewApi]);
  const live = useMemo(() => openLiveAssets(signal), []);
  useEffect(() => () => live.close(), []);
  const params = searchParams.value;
  const [filters, setFilters] = useState(() => filtersOf(params));
  const settled = useDebounced(filters, 250);
  const heading = useRef<HTMLHeadingElement>(null);
  const focusHeading = () => heading.current;

  // One listing per set of filters (and after a watch `reset`); the one left behind is aborted.
  // Its first page waits for the watch to listen, so no change falls in between.
  const [attempt, setAttempt] = useState(0);
  const listing = useMemo(() => new AssetListing(settled, signal, live.listening), [settled.family, settled.label, settled.q, attempt]);
  useEffect(() => () => listing.close(), [listing]);
  useEffect(() => live.onReset(() => setAttempt((n) => n + 1)), []);

  // Filters go to the url (replacing, not stacking history entries).
  useEffect(() => {
    const next = new URLSearchParams(searchParams.value);
    for (const [key, value] of [
      ['type', settled.family],
      ['label', settled.label],
      ['q', settled.q],
    ] as const) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    setSearchParams(next);
  }, [settled]);

  useEffect(() => void loadPolicy(api), []);

  // A finished upload is shown on top of the list at once.
  useEffect(
    () =>
      onUploaded((job) => {
        if (!job.assetId.value) return;
        api.getAsset(job.assetId.value).then(
          (asset) => listing.prepend(asset),
          (error: unknown) => {
            const text = errorText(error, 'Reading the new asset');
            if (text) announceError(text);
          },
        );
      }),
    [listing],
  );

  // --- Selection, with shift-click ranges from the last box clicked (by id: rows come and go above it).
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const anchor = useRef<string | null>(null);
  useEffect(() => setSelected(new Set()), [listing]);
  const onCheck = (index: number, checked: boolean, range: boolean) => {
    const items = listing.items.value;
    const next = new Set(selected);
    const anchorIndex = anchor.current === null ? -1 : items.findIndex((asset) => asset.id === anchor.current);
    const from = range && anchorIndex >= 0 ? Math.min(anchorIndex, index) : index;
    const to = range && anchorIndex >= 0 ? Math.max(anchorIndex, index) : index;
    for (let i = from; i <= to; i++) {
      const id = items[i]?.id;
      if (id && checked) next.add(id);
      else if (id) next.delete(id);
    }
    anchor.current = items[index]?.id ?? null;
    setSelected(next);
  };
  // An asset that left the list (deleted, or no longer matching after a change) leaves the selection.
  const listed = listing.items.value;
  useEffect(() => {
    const present = new Set(listed.map((asset) => asset.id));
    if ([...selected].some((id) => !present.has(id))) setSelected((current) => new Set([...current].filter((id) => present.has(id))));
  }, [listed]);
  const onCheckAll = (checked: boolean) => setSelected(checked ? new Set(listing.items.value.map((asset) => asset.id)) : new Set());

  // --- The open asset (?asset=id): from the list, or read when the link came from elsewhere.
  const openId = params.get('asset') ?? '';
  const [openAsset, setOpenAsset] = useState<Asset | null>(null);
  useEffect(() => {
    if (!openId) return setOpenAsset(null);
    if (openAsset?.id === openId) return;
    const known = listing.items.value.find((asset) => asset.id === openId);
    if (known) return setOpenAsset(known);
    let live = true;
    api.getAsset(openId).then(
      (asset) => live && setOpenAsset(asset),
      (error: unknown) => {
        const text = errorText(error, `Opening asset ${openId}`);
        if (text) announceError(text);
        if (live) closeDetail();
      },
    );
    return () => void (live = false);
  }, [openId]);
  const setOpen = (id: string) => {
    const next = new URLSearchParams(searchParams.value);
    if (id) next.set('asset', id);
    else next.delete('asset');
    setSearchParams(next);
  };
  const openDetail = (asset: Asset) => {
    opened();
    setOpenAsset(asset);
    setOpen(asset.id);
  };
  const closeDetail = () => setOpen('');

  // --- Changes from the watch: into the list in place, into the open panel, and (briefly) to screen readers.
  const openIdNow = useRef(openId);
  openIdNow.current = openId;
  /** The latest change to the open asset (its history reads again), and its deletion made elsewhere. */
  const [openChange, setOpenChange] = useState<AssetChange | null>(null);
  const [goneChange, setGoneChange] = useState<AssetChange | null>(null);
  useEffect(() => {
    setOpenChange(null);
    setGoneChange(null);
  }, [openId]);
  const summary = useMemo(
    () => createChangeSummary({ isLocal: (id) => writes.has(id) || jobs.value.some((job) => job.assetId.value === id) }),
    [],
  );
  useEffect(() => () => summary.close(), []);
  useEffect(
    () =>
      live.onChange((change) => {
        const asset = change.asset as Asset | null;
        const { changed, was } = listing.place(change.assetId, asset);
        const isOpen = change.assetId === openIdNow.current;
        if (isOpen) {
          setOpenChange(change);
          if (asset) setOpenAsset((current) => (current?.id === asset.id ? asset : current));
          else if (!writes.deleting(change.assetId)) setGoneChange(change);
        }
        // The open panel says a deletion itself (an alert); other changes are told only when they changed what is shown.
        if ((changed || isOpen) && !(isOpen && !asset)) summary.add(seenChange(change, asset, was));
      }),
    [listing],
  );

  // --- Batch delete.
  const [confirmBatch, setConfirmBatch] = useState(false);
  const [openings, opened] = useOpenings();
  const [batch, setBatch] = useState<{ results: readonly BatchResult[]; names: ReadonlyMap<string, Asset> } | null>(null);
  const writeRefused = missingScope('assets:write');
  const readRefused = missingScope('assets:read');
  async function deleteSelected() {
    const ids = [...selected];
    const names = new Map(listing.items.value.filter((asset) => selected.has(asset.id)).map((asset) => [asset.id, asset]));
    const results: BatchResult[] = [];
    try {
      for (let i = 0; i < ids.length; i += BATCH_LIMIT)
        results.push(...(await api.batchDeleteAssets(ids.slice(i, i + BATCH_LIMIT))).results);
    } catch (error) {
      const text = errorText(error, 'Deleting the selected assets');
      if (text) announceError(text);
    }
    // Deleted and already-gone ids leave the list and the selection.
    const gone = results.filter((result) => result.code !== 'invalid_argument').map((result) => result.id);
    listing.remove(gone);
    setSelected((current) => new Set([...current].filter((id) => !gone.includes(id))));
    setConfirmBatch(false);
    if (results.length > 0) {
      opened();
      setBatch({ results, names });
      announce(`Deleted ${results.filter((result) => result.code === 'ok').length} of ${results.length} selected assets.`);
    }
  }

  const items = listing.items.value;
  const status = live.status.value;
  const empty = listing.done.value && items.length === 0 && !listing.error.value;
  const filtered = settled.family !== '' || settled.label !== '' || settled.q !== '';

  return (
    <div class="view assets-view">
      <div class="view-head">
        <h1 ref={heading} tabIndex={-1}>
          Assets
        </h1>
        <span class={`live live-${status}`} title={live.problem.value || undefined}>
          <span class="live-dot" aria-hidden="true" />
          {STATUS_TEXT[status]}
          {status === 'live' && ` · revision ${live.revision.value}`}
        </span>
      </div>
      <div class="assets-layout">
        <section class="panel list-panel" aria-labelledby="list-title">
          <h2 id="list-title" class="visually-hidden">
            Asset list
          </h2>
          <AssetFilters values={filters} onChange={setFilters} />
          <div class="toolbar">
            <span class="muted">{selected.size > 0 ? `${selected.size} selected` : 'Select assets to act on several at once'}</span>
            <button
              type="button"
              class="danger"
              disabled={selected.size === 0 || !!writeRefused}
              aria-describedby={writeRefused ? 'batch-scope' : undefined}
              onClick={() => (opened(), setConfirmBatch(true))}
            >
              Delete selected{selected.size > 0 ? ` (${selected.size})` : ''}
            </button>
          </div>
          <ScopeNote id="batch-scope" reason={writeRefused} />
          {listing.error.value && (
            <div class="callout callout-error">
              <p>{listing.error.value}</p>
              <button type="button" onClick={() => setAttempt((n) => n + 1)}>
                Try again
              </button>
            </div>
          )}
          <ScopeNote id="list-scope" reason={readRefused && `Listing assets: ${readRefused}`} />
          {readRefused ? null : empty ? (
            <div class="empty">
              {filtered ? (
                <>
                  <h3>No assets match these filters</h3>
                  <p>Change or clear the filters to see more.</p>
                  <button type="button" onClick={() => setFilters({ family: '', label: '', q: '' })}>
                    Clear filters
                  </button>
                </>
              ) : (
                <>
                  <h3>No assets yet</h3>
                  <p>Drop files on the upload area above, or choose them with "Upload files".</p>
                </>
              )}
            </div>
          ) : (
            <AssetTable
              listing={listing}
              api={listing.api}
              selected={selected}
              onCheck={onCheck}
              onCheckAll={onCheckAll}
              onOpen={openDetail}
            />
          )}
        </section>
        <UploadPanel onOpen={(id) => (opened(), setOpen(id))} />
      </div>

      {openAsset && openId === openAsset.id && (
        <AssetDetail
          key={`${openAsset.id}-${openings}`}
          asset={openAsset}
          api={api}
          lastChange={openChange}
          deleted={goneChange}
          fallbackFocus={focusHeading}
          onClose={closeDetail}
          onChanged={(asset) => {
            setOpenAsset(asset);
            listing.update(asset);
          }}
          onDeleted={(id) => {
            listing.remove([id]);
            setSelected((current) => new Set([...current].filter((other) => other !== id)));
            closeDetail();
          }}
        />
      )}
      {confirmBatch && (
        <Confirm
          key={openings}
          title={`Delete ${selected.size} ${selected.size === 1 ? 'asset' : 'assets'}?`}
          confirmLabel="Delete"
          onConfirm={deleteSelected}
          onClose={() => setConfirmBatch(false)}
        >
          <p>
            {[...selected]
              .slice(0, 5)
              .map((id) => {
                const asset = items.find((item) => item.id === id);
                return asset ? assetTitle(asset) : id;
              })
              .join(', ')}
            {selected.size > 5 && ` and ${selected.size - 5} more`} will be deleted with every url and signed link they had. This cannot be
            undone.
          </p>
        </Confirm>
      )}
      {batch && (
        <BatchResults
          key={openings}
          results={batch.results}
          names={batch.names}
          onClose={() => setBatch(null)}
          fallbackFocus={focusHeading}
        />
      )}
    </div>
  );
}

/** How a change is told when it is the only one in its second. */
function seenChange(change: AssetChange, asset: Asset | null, was: Asset | undefined): SeenChange {
  const title = asset ? assetTitle(asset) : was ? assetTitle(was) : change.assetId;
  const assetId = change.assetId;
  switch (change.type) {
    case 'asset.created':
      return { kind: 'added', assetId, sentence: `${title} was added elsewhere.` };
    case 'asset.replaced':
      return { kind: 'replaced', assetId, sentence: `The file of ${title} was replaced elsewhere.` };
    case 'asset.deleted':
      return { kind: 'deleted', assetId, sentence: `${title} was deleted elsewhere.` };
    default: {
      const renamed = was && asset && assetTitle(was) !== title;
      return {
        kind: 'changed',
        assetId,
        sentence: renamed ? `${assetTitle(was)} was renamed to ${title} elsewhere.` : `${title} was changed elsewhere.`,
      };
    }
  }
}
