// One row of the asset table: a checkbox named after the asset, the
// thumbnail, and the fields; the name opens the detail panel.
import type { Api, Asset } from '../../lib/api.js';
import { formatBytes, formatDate, formatShortDate } from '../../lib/format.js';
import { Thumbnail } from './Thumbnail.js';

export interface AssetRowProps {
  readonly asset: Asset;
  readonly index: number;
  readonly top: number;
  readonly api: Api;
  readonly selected: boolean;
  readonly onCheck: (index: number, checked: boolean, range: boolean) => void;
  readonly onOpen: (asset: Asset) => void;
}

/** What a person calls the asset: its name, or its id when it has none. */
export const assetTitle = (asset: Asset): string => asset.name || asset.id;

export function AssetRow({ asset, index, top, api, selected, onCheck, onOpen }: AssetRowProps) {
  const title = assetTitle(asset);
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      class={`row${selected ? ' row-selected' : ''}`}
      style={{ transform: `translateY(${top}px)` }}
      data-asset-id={asset.id}
    >
      <div role="cell" class="cell-check">
        <input
          type="checkbox"
          aria-label={title}
          checked={selected}
          onClick={(event) => onCheck(index, event.currentTarget.checked, event.shiftKey)}
        />
      </div>
      <div role="cell" class="cell-thumb">
        <Thumbnail asset={asset} api={api} />
      </div>
      <div role="cell" class="cell-name">
        <button type="button" class="link-button name-button" onClick={() => onOpen(asset)} title={title}>
          {title}
        </button>
        {asset.name && <span class="sub">{asset.id}</span>}
      </div>
      <div role="cell" class="cell-label">
        {asset.label ? <span class="chip">{asset.label}</span> : <span class="muted">—</span>}
      </div>
      <div role="cell" class="cell-type">
        {asset.type}
      </div>
      <div role="cell" class="cell-size">
        {formatBytes(asset.size)}
      </div>
      <div role="cell" class="cell-date">
        <time dateTime={asset.uploadedAt} title={formatDate(asset.uploadedAt)}>
          {formatShortDate(asset.uploadedAt)}
        </time>
      </div>
      <div role="cell" class="cell-visibility">
        <span class={`badge badge-${asset.visibility}`}>{asset.visibility}</span>
      </div>
    </div>
  );
}
