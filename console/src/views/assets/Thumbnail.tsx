// A list thumbnail: the image through a transformation url (signed when the
// asset is private), or the type's icon for everything else and for an image
// the server could not transform.
import { useEffect, useState } from 'preact/hooks';
import type { Api, Asset } from '../../lib/api.js';
import { hasThumbnail } from '../../lib/asset-types.js';
import { THUMB_SIZE, thumbnailUrl, transformUrl } from '../../lib/thumbnails.js';
import { TypeIcon } from '../../ui/TypeIcon.js';

export function Thumbnail({ asset, api }: { readonly asset: Asset; readonly api: Api }) {
  const wanted = hasThumbnail(asset.type);
  const publicSrc =
    wanted && asset.visibility !== 'private'
      ? transformUrl(asset.url, { w: THUMB_SIZE, h: THUMB_SIZE, fit: 'cover', format: 'auto' })
      : null;
  const [signedSrc, setSignedSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    setFailed(false);
    setSignedSrc(null);
    if (!wanted || asset.visibility !== 'private') return;
    let live = true;
    thumbnailUrl(api, asset).then(
      (url) => live && setSignedSrc(url),
      () => live && setFailed(true),
    );
    return () => void (live = false);
  }, [asset.url, asset.visibility, wanted]);

  const src = publicSrc ?? signedSrc;
  if (!wanted || failed || src === null) {
    return (
      <span class="thumb thumb-icon">
        <TypeIcon type={asset.type} />
      </span>
    );
  }
  // Decorative: the row's name says what it is.
  return <img class="thumb" src={src} alt="" width={48} height={48} loading="lazy" decoding="async" onError={() => setFailed(true)} />;
}
