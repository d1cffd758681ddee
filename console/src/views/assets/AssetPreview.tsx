// The detail panel's preview: images through a transformation (signed when
// private), video and audio in the browser's own players, and for PDFs and
// other types (or a preview that failed) the type icon with a download link.
import { useEffect, useState } from 'preact/hooks';
import type { Api, Asset } from '../../lib/api.js';
import { familyOf, hasThumbnail } from '../../lib/asset-types.js';
import { viewUrl } from '../../lib/thumbnails.js';
import { TypeIcon } from '../../ui/TypeIcon.js';
import { assetTitle } from './AssetRow.js';
import { DownloadLink } from './DownloadLink.js';

export function AssetPreview({ asset, api }: { readonly asset: Asset; readonly api: Api }) {
  const family = familyOf(asset.type);
  const transformed = hasThumbnail(asset.type);
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const title = assetTitle(asset);

  useEffect(() => {
    let live = true;
    setSrc(null);
    setFailed(false);
    // 640 wide fits the panel at 2x; the file itself for players and downloads.
    viewUrl(api, asset, transformed ? { w: 640, fit: 'inside', format: 'auto' } : undefined).then(
      (url) => live && setSrc(url),
      () => live && setFailed(true),
    );
    return () => void (live = false);
  }, [asset.url, asset.visibility]);

  if (src === null && !failed) return <div class="preview preview-loading">Loading preview…</div>;
  if (!failed && src !== null) {
    if (family === 'image') {
      // The size is known: the box is reserved before the image arrives (no jump, and no empty panel in a screenshot).
      const size =
        asset.width && asset.height
          ? { width: Math.min(640, asset.width), height: Math.round((asset.height * Math.min(640, asset.width)) / asset.width) }
          : {};
      return <img class="preview" src={src} alt={`Preview of ${title}`} {...size} onError={() => setFailed(true)} />;
    }
    if (family === 'video') return <video class="preview" src={src} controls preload="metadata" aria-label={`Video ${title}`} />;
    if (family === 'audio') return <audio class="preview-audio" src={src} controls preload="metadata" aria-label={`Audio ${title}`} />;
  }
  return (
    <div class="preview preview-file">
      <TypeIcon type={asset.type} size={64} />
      <span>{asset.type}</span>
      <DownloadLink asset={asset} api={api} />
    </div>
  );
}
