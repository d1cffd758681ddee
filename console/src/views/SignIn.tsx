// Sign-in: a bearer token or an API key pasted in, checked against the server
// before it is kept (a bad signature, an expired token or a revoked key is
// refused here, with the server's reason), then held in memory and
// sessionStorage only.
import { useState } from 'preact/hooks';
import { createRestClient, SwitchyardRestError, type RestCaller } from '@switchyard/client/web';
import { apiBase } from '../lib/api.js';
import { decodeToken } from '../lib/jwt.js';
import type { TokenClaims } from '../lib/jwt.js';
import { expiredMessage, isApiKey, isExpired, signOutReason, startSession } from '../lib/session.js';

export function SignIn() {
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const reason = signOutReason.value;

  async function submit(event: Event) {
    event.preventDefault();
    const candidate = value.trim().replace(/^Bearer\s+/i, '');
    if (isApiKey(candidate)) return signInWithKey(candidate);
    const claims = decodeToken(candidate);
    if (typeof claims === 'string') return setError(claims);
    if (isExpired(claims)) return setError(expiredMessage(claims));
    setBusy(true);
    setError('');
    try {
      // Any call proves the token: 200, or 403 for a valid token without assets:read. Only 401 refuses it.
      await createRestClient({ baseUrl: apiBase(), token: candidate }).getWorkspaceUsage();
      startSession(candidate);
    } catch (failure) {
      if (failure instanceof SwitchyardRestError && failure.status === 403) startSession(candidate);
      else if (failure instanceof SwitchyardRestError)
        setError(`The server refused this token: ${failure.message} [${failure.status} ${failure.code}]`);
      else setError(`The server could not be reached: ${failure instanceof Error ? failure.message : String(failure)}`);
    } finally {
      setBusy(false);
    }
  }

  /** A key's secret carries no claims: the server says whose it is, and that answer is the check. */
  async function signInWithKey(candidate: string) {
    setBusy(true);
    setError('');
    try {
      startSession(candidate, claimsOf(await createRestClient({ baseUrl: apiBase(), token: candidate }).getCaller()));
    } catch (failure) {
      if (failure instanceof SwitchyardRestError)
        setError(`The server refused this key: ${failure.message} [${failure.status} ${failure.code}]`);
      else setError(`The server could not be reached: ${failure instanceof Error ? failure.message : String(failure)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="signin">
      <div class="signin-card">
        <h1>Switchyard console</h1>
        <p>Browse, upload and share your workspace's assets, and watch its route table live.</p>
        {reason && (
          <p class="callout callout-warning" role="status">
            {reason}
          </p>
        )}
        <form onSubmit={(event) => void submit(event)} class="stack" noValidate>
          <label for="token">Token</label>
          <textarea
            id="token"
            name="token"
            rows={4}
            required
            spellcheck={false}
            autocomplete="off"
            aria-describedby="token-help"
            aria-invalid={error ? 'true' : undefined}
            aria-errormessage={error ? 'token-error' : undefined}
            value={value}
            onInput={(event) => setValue(event.currentTarget.value)}
            // A token is one line: Enter signs in, as in a one-line field.
            onKeyDown={(event) => {
              if (event.key === 'Enter' && !event.shiftKey) {
                event.preventDefault();
                event.currentTarget.form?.requestSubmit();
              }
            }}
          />
          {error && (
            <p id="token-error" class="field-error" role="alert">
              {error}
            </p>
          )}
          <div id="token-help" class="help">
            <p>
              Paste a bearer token or an API key (<code>sy_…</code>). On the machine running the server, with the same <code>DATA_DIR</code>
              , get a token with:
            </p>
            <pre>
              <code>npm run -s token -- --workspace demo</code>
            </pre>
            <p>The token stays in this tab only (memory and session storage) and is sent only in the Authorization header.</p>
          </div>
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </div>
    </main>
  );
}

function claimsOf(caller: RestCaller): TokenClaims {
  return {
    subject: caller.subject,
    workspace: caller.workspace,
    scopes: caller.scopes,
    expiresAt: caller.expiresAt === null ? undefined : Date.parse(caller.expiresAt) / 1000,
  };
}
