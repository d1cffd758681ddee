// The asset list as an ARIA table whose rows are virtualized: only the rows
// in view (and a few around them) are in the DOM, so ten thousand assets cost
// what forty do. Nearing the end of what is loaded reads the next page.
// Rows that come or go above the view (changes made elsewhere) do not move
// the rows in view.
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import type { Api, Asset } from '../../lib/api.js';
import type { AssetListing } from '../../lib/asset-listing.js';
import { filteredInBrowser } from '../../lib/asset-types.js';
import { useVirtualizer } from '../../lib/virtual.js';
import { AssetRow } from './AssetRow.js';

const ROW_HEIGHT = 64;
/** Rows left below the view when the next page is asked for. */
const PREFETCH_ROWS = 30;

export interface AssetTableProps {
  readonly listing: AssetListing;
  readonly api: Api;
  readonly selected: ReadonlySet<string>;
  readonly onCheck: (index: number, checked: boolean, range: boolean) => void;
  readonly onCheckAll: (checked: boolean) => void;
  readonly onOpen: (asset: Asset) => void;
}

export function AssetTable({ listing, api, selected, onCheck, onCheckAll, onOpen }: AssetTableProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const items = listing.items.value;
  const loading = listing.loading.value;
  const done = listing.done.value;
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    getItemKey: (index) => items[index]?.id ?? index,
  });
  const rows = virtualizer.getVirtualItems();
  const lastShown = rows.length > 0 ? rows[rows.length - 1]!.index : -1;

  // Reads on while the loaded rows do not reach past the view (also when the browser filters most of a page out).
  useEffect(() => {
    if (!done && !loading && lastShown >= items.length - PREFETCH_ROWS) void listing.loadMore();
  }, [lastShown, items.length, loading, done, listing]);

  useScrollAnchor(scroller, items);

  const allChecked = items.length > 0 && items.every((asset) => selected.has(asset.id));
  return (
    <div class="table-wrap">
      <div role="table" aria-label="Assets" aria-rowcount={done ? items.length + 1 : -1} class="asset-table">
        <div role="rowgroup" class="table-head">
          <div role="row" aria-rowindex={1} class="row row-head">
            <div role="columnheader" class="cell-check">
              <input
                type="checkbox"
                aria-label="Select all loaded assets"
                checked={allChecked}
                disabled={items.length === 0}
                onClick={(event) => onCheckAll(event.currentTarget.checked)}
              />
            </div>
            <div role="columnheader" class="cell-thumb">
              <span class="visually-hidden">Preview</span>
            </div>
            <div role="columnheader" class="cell-name">
              Name
            </div>
            <div role="columnheader" class="cell-label">
              Label
            </div>
            <div role="columnheader" class="cell-type">
              Type
            </div>
            <div role="columnheader" class="cell-size">
              Size
            </div>
            <div role="columnheader" class="cell-date">
              Uploaded
            </div>
            <div role="columnheader" class="cell-visibility">
              Visibility
            </div>
          </div>
        </div>
        <div ref={scroller} class="table-scroll">
          <div role="rowgroup" class="table-body" style={{ height: `${virtualizer.getTotalSize()}px` }}>
            {rows.map((row) => {
              const asset = items[row.index]!;
              return (
                <AssetRow
                  key={asset.id}
                  asset={asset}
                  index={row.index}
                  top={row.start}
                  api={api}
                  selected={selected.has(asset.id)}
                  onCheck={onCheck}
                  onOpen={onOpen}
                />
              );
            })}
          </div>
        </div>
      </div>
      <p class="table-foot">
        {loading
          ? 'Loading assets…'
          : done
            ? `${items.length} ${items.length === 1 ? 'asset' : 'assets'}`
            : `${items.length} assets loaded; scroll for more`}
        {filteredInBrowser(listing.filters.family) &&
          listing.scanned.value > items.length &&
          ` (${listing.scanned.value} read, filtered in the browser)`}
      </p>
    </div>
  );
}

/**
 * Keeps the first row in view where it is when rows are added or removed
 * above it: the scroll offset moves by what changed above. At the very top
 * nothing is held, so new assets show as they come. A held row that is
 * itself removed hands its place to the next row that stayed.
 */
function useScrollAnchor(scroller: { readonly current: HTMLDivElement | null }, items: readonly Asset[]): void {
  const held = useRef<{ id: string; offset: number } | null>(null);
  const shown = useRef(items);

  const hold = () => {
    const element = scroller.current;
    if (!element) return;
    const index = Math.floor(element.scrollTop / ROW_HEIGHT);
    const asset = shown.current[index];
    held.current = asset ? { id: asset.id, offset: index * ROW_HEIGHT - element.scrollTop } : null;
  };

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    element.addEventListener('scroll', hold, { passive: true });
    return () => element.removeEventListener('scroll', hold);
  }, [scroller.current]);

  useLayoutEffect(() => {
    const element = scroller.current;
    const previous = shown.current;
    shown.current = items;
    const anchor = held.current;
    if (!element || !anchor || previous === items || element.scrollTop === 0) return hold();
    const at = new Map(items.map((asset, index) => [asset.id, index]));
    let index = at.get(anchor.id) ?? -1;
    for (let i = previous.findIndex((asset) => asset.id === anchor.id) + 1; index < 0 && i > 0 && i < previous.length; i++)
      index = at.get(previous[i]!.id) ?? -1;
    if (index >= 0) {
      const target = index * ROW_HEIGHT - anchor.offset;
      if (Math.abs(element.scrollTop - target) >= 1) element.scrollTop = target;
    }
    hold();
  }, [items]);
}
