// An asset's versions in its detail panel (GET /v1/assets/{id}/versions):
// the files its replaces kept, newest first, each with Restore (POST
// …/versions/{v}:restore), which makes it current again as a replace does
// (the current file becomes a version in turn, so nothing is lost: no
// confirmation). Read again after every change to the asset.
import { useEffect, useState } from 'preact/hooks';
import type { RestAssetChange, RestAssetVersion } from '@switchyard/client/web';
import { errorText, type Api, type Asset } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { formatBytes, formatDate } from '../../lib/format.js';
import { missingScope } from '../../lib/session.js';
import { ScopeNote } from '../../ui/ScopeNote.js';

export interface AssetVersionsProps {
  readonly assetId: string;
  readonly api: Api;
  /** The latest change heard for this asset: a replace or a restore changes the versions. */
  readonly lastChange: RestAssetChange | null;
  /** The asset's current sha256: a restore made here reads the versions again even before the watch says so. */
  readonly currentSha256: string;
  /** The asset was deleted elsewhere: the list stays, Restore goes. */
  readonly disabled: boolean;
  readonly onRestored: (asset: Asset) => void;
}

export function AssetVersions({ assetId, api, lastChange, currentSha256, disabled, onRestored }: AssetVersionsProps) {
  const [versions, setVersions] = useState<readonly RestAssetVersion[] | undefined>(undefined);
  const [problem, setProblem] = useState('');
  const [restoring, setRestoring] = useState('');
  const writeRefused = missingScope('assets:write');

  useEffect(() => {
    if (disabled) return;
    let live = true;
    api.listAssetVersions(assetId).then(
      (listed) => {
        if (!live) return;
        setVersions(listed.versions);
        setProblem('');
      },
      (error: unknown) => live && setProblem(errorText(error, 'Reading the versions') ?? ''),
    );
    return () => void (live = false);
  }, [assetId, lastChange, currentSha256, disabled]);

  async function restore(version: RestAssetVersion) {
    setRestoring(version.id);
    try {
      const restored = await api.restoreAssetVersion(assetId, version.id);
      onRestored(restored);
      announce(`Version restored: its file is current again; the file it replaced is kept as a version.`);
    } catch (error) {
      const text = errorText(error, 'Restoring the version');
      if (text) announceError(text);
    } finally {
      setRestoring('');
    }
  }

  return (
    <section class="detail-section" aria-labelledby="versions-title">
      <h3 id="versions-title">Versions</h3>
      {versions === undefined && !problem && !disabled && <p class="muted">Reading the versions…</p>}
      {versions !== undefined && versions.length === 0 && (
        <p class="muted">No versions: a replace keeps the file it replaces here, as the workspace's policy allows.</p>
      )}
      {versions !== undefined && versions.length > 0 && (
        <ol class="versions" aria-labelledby="versions-title">
          {versions.map((version) => (
            <li key={version.id}>
              <span class="version-what" id={`version-${version.id}`}>
                <span>
                  {version.name || <span class="muted">no name</span>} · {version.type} · {formatBytes(version.size)}
                </span>
                <span class="history-when">
                  Uploaded <time dateTime={version.uploadedAt}>{formatDate(version.uploadedAt)}</time>
                  {version.actor && (
                    <>
                      {' '}
                      by <span class="mono">{version.actor}</span>
                    </>
                  )}
                  , replaced <time dateTime={version.replacedAt}>{formatDate(version.replacedAt)}</time>
                </span>
                <span class="history-when break">SHA-256 {version.sha256}</span>
              </span>
              <button
                type="button"
                disabled={!!writeRefused || disabled || restoring !== ''}
                aria-describedby={writeRefused ? `version-${version.id} versions-scope` : `version-${version.id}`}
                onClick={() => void restore(version)}
              >
                {restoring === version.id ? 'Restoring…' : 'Restore'}
              </button>
            </li>
          ))}
        </ol>
      )}
      {problem && <p class="callout callout-error">{problem}</p>}
      <ScopeNote id="versions-scope" reason={versions?.length ? writeRefused : undefined} />
    </section>
  );
}
