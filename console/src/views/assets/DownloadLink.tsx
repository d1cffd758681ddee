// A link that downloads the file under its name: `?download` on the file url
// (the server answers Content-Disposition: attachment with the name). A
// private file's link is a short signed url; `download` is outside the
// signature, so it can be added to one.
import { useEffect, useState } from 'preact/hooks';
import type { Api, Asset } from '../../lib/api.js';
import { viewUrl } from '../../lib/thumbnails.js';
import { assetTitle } from './AssetRow.js';

export function DownloadLink({ asset, api }: { readonly asset: Asset; readonly api: Api }) {
  const [href, setHref] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    viewUrl(api, asset).then(
      (url) => live && setHref(`${url}${url.includes('?') ? '&' : '?'}download`),
      () => live && setHref(null),
    );
    return () => void (live = false);
  }, [asset.url, asset.visibility]);
  if (href === null) return null;
  return (
    <a href={href} class="button">
      Download {assetTitle(asset)}
    </a>
  );
}
