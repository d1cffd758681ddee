// Sharing: "Sign link" makes a url that works for the chosen time (also for
// a private asset), shown to copy; "Revoke links" ends every link signed so far.
import { useState } from 'preact/hooks';
import { errorText, type Api, type Asset } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { copyText } from '../../lib/clipboard.js';
import { formatDate } from '../../lib/format.js';
import { missingScope } from '../../lib/session.js';
import { forgetSigned } from '../../lib/thumbnails.js';
import { ScopeNote } from '../../ui/ScopeNote.js';

const EXPIRIES: readonly [number, string][] = [
  [300, '5 minutes'],
  [3600, '1 hour'],
  [86_400, '1 day'],
  [604_800, '7 days'],
];

export function SignLink({ asset, api }: { readonly asset: Asset; readonly api: Api }) {
  const [expiresIn, setExpiresIn] = useState(3600);
  const [signed, setSigned] = useState<{ url: string; expiresAt: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const readRefused = missingScope('assets:read');
  const writeRefused = missingScope('assets:write');

  async function sign() {
    setBusy(true);
    try {
      const result = await api.createSignedUrl(asset.id, { expiresIn });
      setSigned(result);
      announce(`Signed link made; it works until ${formatDate(result.expiresAt)}.`);
    } catch (error) {
      const text = errorText(error, 'Signing a link');
      if (text) announceError(text);
    } finally {
      setBusy(false);
    }
  }

  async function revoke() {
    setBusy(true);
    try {
      await api.revokeSignedUrls(asset.id);
      forgetSigned(asset);
      setSigned(null);
      announce('Every link signed so far has been revoked.');
    } catch (error) {
      const text = errorText(error, 'Revoking links');
      if (text) announceError(text);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="detail-section" aria-labelledby="share-title">
      <h3 id="share-title">Share</h3>
      <div class="inline-fields">
        <div class="field">
          <label for="sign-expiry">Link expires in</label>
          <select id="sign-expiry" value={String(expiresIn)} onChange={(event) => setExpiresIn(Number(event.currentTarget.value))}>
            {EXPIRIES.map(([seconds, text]) => (
              <option key={seconds} value={String(seconds)}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <button
          type="button"
          onClick={() => void sign()}
          disabled={busy || !!readRefused}
          aria-describedby={readRefused ? 'sign-scope' : undefined}
        >
          Sign link
        </button>
        <button
          type="button"
          onClick={() => void revoke()}
          disabled={busy || !!writeRefused}
          aria-describedby={writeRefused ? 'revoke-scope' : undefined}
        >
          Revoke links
        </button>
      </div>
      <ScopeNote id="sign-scope" reason={readRefused} />
      <ScopeNote id="revoke-scope" reason={writeRefused && `Revoking links: ${writeRefused}`} />
      {signed && (
        <div class="copy-row">
          <label for="signed-url">Signed URL</label>
          <div class="copy-field">
            <input id="signed-url" type="text" readOnly value={signed.url} onFocus={(event) => event.currentTarget.select()} />
            <button type="button" onClick={() => void copyText(signed.url, 'Signed URL')}>
              Copy signed URL
            </button>
          </div>
          <p class="help">Works until {formatDate(signed.expiresAt)}, or until revoked, replaced or deleted.</p>
        </div>
      )}
    </section>
  );
}
