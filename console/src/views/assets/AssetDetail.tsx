// The detail panel of one asset: preview, every field, copy and share its
// url, replace its file, edit it, delete it (after a confirmation), its
// versions (with restore) and its history. It follows changes made elsewhere; deleted elsewhere, it stays
// open and says so, its actions gone.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { RestAssetChange } from '@switchyard/client/web';
import { errorText, type Api, type Asset } from '../../lib/api.js';
import { useOpenings } from '../../lib/hooks.js';
import { announce, announceError } from '../../lib/announce.js';
import { copyText } from '../../lib/clipboard.js';
import { formatBytes, formatDate } from '../../lib/format.js';
import { missingScope } from '../../lib/session.js';
import { Confirm } from '../../ui/Confirm.js';
import { Modal } from '../../ui/Modal.js';
import { ScopeNote } from '../../ui/ScopeNote.js';
import { familyOf } from '../../lib/asset-types.js';
import { AssetEditForm } from './AssetEditForm.js';
import { AssetHistory } from './AssetHistory.js';
import { AssetVersions } from './AssetVersions.js';
import { DownloadLink } from './DownloadLink.js';
import { AssetPreview } from './AssetPreview.js';
import { assetTitle } from './AssetRow.js';
import { SignLink } from './SignLink.js';

export interface AssetDetailProps {
  readonly asset: Asset;
  readonly api: Api;
  readonly onChanged: (asset: Asset) => void;
  readonly onDeleted: (id: string) => void;
  readonly onClose: () => void;
  readonly fallbackFocus: () => HTMLElement | null;
  /** The latest change to this asset heard from the watch (made here or elsewhere). */
  readonly lastChange?: RestAssetChange | null;
  /** Its deletion, made elsewhere while the panel was open. */
  readonly deleted?: RestAssetChange | null;
}

export function AssetDetail({
  asset,
  api,
  onChanged,
  onDeleted,
  onClose,
  fallbackFocus,
  lastChange = null,
  deleted = null,
}: AssetDetailProps) {
  const [confirming, setConfirming] = useState(false);
  const [openings, opened] = useOpenings();
  const [replacing, setReplacing] = useState(false);
  const [replacedFrom, setReplacedFrom] = useState('');
  const writeRefused = missingScope('assets:write');
  const replaceInput = useRef<HTMLInputElement>(null);
  const title = assetTitle(asset);
  const gone = deleted !== null;

  // A new url means a new file (a replace here or elsewhere): the old url is named, as it no longer works.
  const shownUrl = useRef(asset.url);
  useEffect(() => {
    if (asset.url !== shownUrl.current) setReplacedFrom(shownUrl.current);
    shownUrl.current = asset.url;
  }, [asset.url]);

  // Deleted while a control of the panel had focus (now disabled or gone): focus goes to the notice, not the page.
  const goneNotice = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!gone) return;
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected || active.matches(':disabled')) goneNotice.current?.focus();
  }, [gone]);

  async function replace(file: File) {
    setReplacing(true);
    try {
      const replaced = await api.replaceAsset(asset.id, file, { filename: file.name });
      onChanged(replaced);
      announce(`File replaced; the asset keeps its id and has a new url.`);
    } catch (error) {
      const text = errorText(error, 'Replacing the file');
      if (text) announceError(text);
    } finally {
      setReplacing(false);
    }
  }

  async function remove() {
    try {
      await api.deleteAsset(asset.id);
      announce(`Deleted ${title}.`);
      setConfirming(false);
      onDeleted(asset.id);
    } catch (error) {
      const text = errorText(error, 'Deleting');
      if (text) announceError(text);
    }
  }

  return (
    <Modal title={title} onClose={onClose} variant="sheet" fallbackFocus={fallbackFocus}>
      {deleted && (
        <div ref={goneNotice} tabIndex={-1} class="callout callout-warning" role="alert">
          <p>
            <strong>This asset was deleted</strong> by <span class="mono">{deleted.actor || 'someone'}</span> at{' '}
            <time dateTime={deleted.time}>{formatDate(deleted.time)}</time>. Its file and every url and signed link it had no longer work;
            what it was is shown below.
          </p>
        </div>
      )}
      {!gone && <AssetPreview asset={asset} api={api} />}

      <section class="detail-section" aria-labelledby="url-title">
        <h3 id="url-title">URL</h3>
        <div class="copy-field">
          <input type="text" readOnly value={asset.url} aria-labelledby="url-title" onFocus={(event) => event.currentTarget.select()} />
          <button type="button" disabled={gone} onClick={() => void copyText(asset.url, 'URL')}>
            Copy URL
          </button>
        </div>
        {asset.visibility === 'private' && (
          <p class="help">This asset is private: its plain url answers 403. Share a signed link instead.</p>
        )}
        {replacedFrom && !gone && (
          <p class="help" role="status">
            Replaced: the new url is above (the old one, <span class="break">{replacedFrom}</span>, no longer works).
          </p>
        )}
      </section>

      {!gone && <SignLink asset={asset} api={api} />}

      <section class="detail-section" aria-labelledby="facts-title">
        <h3 id="facts-title">Details</h3>
        <dl class="facts">
          <dt>Id</dt>
          <dd>{asset.id}</dd>
          <dt>Name</dt>
          <dd>{asset.name || <span class="muted">none</span>}</dd>
          <dt>Label</dt>
          <dd>{asset.label || <span class="muted">none</span>}</dd>
          <dt>Type</dt>
          <dd>{asset.type}</dd>
          <dt>Size</dt>
          <dd>
            {formatBytes(asset.size)} ({asset.size.toLocaleString()} bytes)
          </dd>
          {asset.width !== undefined && asset.height !== undefined && (
            <>
              <dt>Dimensions</dt>
              <dd>
                {asset.width} × {asset.height} px
              </dd>
            </>
          )}
          {asset.durationMs !== undefined && (
            <>
              <dt>Duration</dt>
              <dd>{(asset.durationMs / 1000).toFixed(1)} s</dd>
            </>
          )}
          {asset.pages !== undefined && (
            <>
              <dt>Pages</dt>
              <dd>{asset.pages}</dd>
            </>
          )}
          <dt>Visibility</dt>
          <dd>{asset.visibility}</dd>
          <dt>Uploaded</dt>
          <dd>
            <time dateTime={asset.uploadedAt}>{formatDate(asset.uploadedAt)}</time>
          </dd>
          <dt>SHA-256</dt>
          <dd class="break">{asset.sha256}</dd>
          {asset.placeholder && (
            <>
              <dt>Placeholder</dt>
              <dd class="break">{asset.placeholder}</dd>
            </>
          )}
        </dl>
      </section>

      <AssetEditForm asset={asset} api={api} onSaved={onChanged} disabled={gone} />

      <section class="detail-section" aria-labelledby="file-title">
        <h3 id="file-title">File</h3>
        <div class="actions">
          <input
            id="replace-file"
            ref={replaceInput}
            class="visually-hidden"
            type="file"
            disabled={!!writeRefused || replacing || gone}
            aria-describedby={writeRefused ? 'file-scope' : undefined}
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              event.currentTarget.value = '';
              if (file) void replace(file);
            }}
          />
          <label for="replace-file" class={`button${writeRefused || replacing || gone ? ' button-disabled' : ''}`}>
            Replace file
          </label>
          {replacing && <span class="muted">Replacing…</span>}
          {!gone && ['image', 'video', 'audio'].includes(familyOf(asset.type)) && <DownloadLink asset={asset} api={api} />}
          <button
            type="button"
            class="danger"
            disabled={!!writeRefused || gone}
            aria-describedby={writeRefused ? 'file-scope' : undefined}
            onClick={() => (opened(), setConfirming(true))}
          >
            Delete
          </button>
        </div>
        <ScopeNote id="file-scope" reason={writeRefused} />
      </section>

      <AssetVersions
        assetId={asset.id}
        api={api}
        lastChange={lastChange}
        currentSha256={asset.sha256}
        disabled={gone}
        onRestored={onChanged}
      />

      <AssetHistory assetId={asset.id} api={api} lastChange={lastChange} />

      {confirming && !gone && (
        <Confirm key={openings} title={`Delete ${title}?`} confirmLabel="Delete" onConfirm={remove} onClose={() => setConfirming(false)}>
          <p>
            The file and every url and signed link it had stop working at once. It stays in the Trash for the workspace's retention (none at
            0 days), where it can be restored; its signed links stay dead.
          </p>
        </Confirm>
      )}
    </Modal>
  );
}
