// The workspace's API keys, for workspace:admin: create one (scopes as
// checkboxes, within the signed-in credential's; an expiry), its secret shown
// once with Copy; the list with last use; roll and revoke (with confirmation).
import { useEffect, useState } from 'preact/hooks';
import type { RestKey } from '@switchyard/client/web';
import { errorText, type Api } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { copyText } from '../../lib/clipboard.js';
import { claims, missingScope } from '../../lib/session.js';
import { Confirm } from '../../ui/Confirm.js';

const SCOPES = ['routes:read', 'routes:write', 'assets:read', 'assets:write', 'workspace:admin'];
const DAY_MS = 86_400_000;

export function KeysPanel({ api }: { readonly api: Api }) {
  const refused = missingScope('workspace:admin');
  const [keys, setKeys] = useState<readonly RestKey[] | undefined>(undefined);
  const [shown, setShown] = useState<{ readonly id: string; readonly secret: string } | undefined>(undefined);
  const [revoking, setRevoking] = useState<RestKey | undefined>(undefined);

  const load = async () => {
    try {
      setKeys((await api.listKeys({ pageSize: 1000 })).keys);
    } catch (error) {
      const text = errorText(error, 'Listing the API keys');
      if (text) announceError(text);
    }
  };
  useEffect(() => void (refused ? undefined : load()), []);

  if (refused) {
    return (
      <section class="panel" aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        <p class="scope-note">Only a credential with the workspace:admin scope can manage API keys. {refused}</p>
      </section>
    );
  }

  async function roll(key: RestKey) {
    try {
      const rolled = await api.rollKey(key.id, 0);
      setShown({ id: rolled.id, secret: rolled.secret });
      announce(`Key ${key.name} has a new secret; the old one no longer works.`);
      await load();
    } catch (error) {
      const text = errorText(error, 'Rolling the key');
      if (text) announceError(text);
    }
  }

  return (
    <section class="panel stack" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <CreateKeyForm
        api={api}
        onCreated={(created) => {
          setShown(created);
          void load();
        }}
      />
      {shown && (
        <div class="callout" role="status">
          <p>
            Copy the secret now: it is shown only once. Send it as <code>Authorization: Bearer …</code>.
          </p>
          <label for="key-secret">Secret of {shown.id}</label>
          <input id="key-secret" readOnly value={shown.secret} />
          <button type="button" onClick={() => void copyText(shown.secret, 'Secret')}>
            Copy secret
          </button>
        </div>
      )}
      {keys === undefined ? (
        <p class="loading">Loading…</p>
      ) : keys.length === 0 ? (
        <p class="muted">No API keys yet.</p>
      ) : (
        <table>
          <caption class="visually-hidden">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scopes</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => {
              const live = key.revokedAt === null && Date.parse(key.expiresAt) > Date.now();
              return (
                <tr key={key.id}>
                  <th scope="row">{key.name}</th>
                  <td>{key.scopes.join(' ')}</td>
                  <td>{new Date(key.expiresAt).toLocaleString()}</td>
                  <td>{key.lastUsedAt ? new Date(key.lastUsedAt).toLocaleString() : 'never'}</td>
                  <td>{key.revokedAt ? 'revoked' : live ? 'active' : 'expired'}</td>
                  <td>
                    {live && (
                      <>
                        <button type="button" aria-label={`Roll ${key.name}`} onClick={() => void roll(key)}>
                          Roll
                        </button>{' '}
                        <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => setRevoking(key)}>
                          Revoke
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {revoking && (
        <Confirm
          title={`Revoke ${revoking.name}?`}
          confirmLabel="Revoke key"
          onClose={() => setRevoking(undefined)}
          onConfirm={async () => {
            try {
              await api.revokeKey(revoking.id);
              announce(`Key ${revoking.name} revoked.`);
              setRevoking(undefined);
              await load();
              return true;
            } catch (error) {
              const text = errorText(error, 'Revoking the key');
              if (text) announceError(text);
              return false;
            }
          }}
        >
          Programs using this key are refused from now on. This cannot be undone.
        </Confirm>
      )}
    </section>
  );
}

function CreateKeyForm({ api, onCreated }: { readonly api: Api; readonly onCreated: (key: { id: string; secret: string }) => void }) {
  const held = claims.value?.scopes ?? [];
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<readonly string[]>([]);
  const [days, setDays] = useState('30');
  const [busy, setBusy] = useState(false);

  async function create(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      const expiresAt = new Date(Date.now() + Number(days) * DAY_MS).toISOString();
      const created = await api.createKey({ name, scopes, expiresAt });
      announce(`Key ${created.name} created.`);
      setName('');
      setScopes([]);
      onCreated({ id: created.id, secret: created.secret });
    } catch (error) {
      const text = errorText(error, 'Creating the key');
      if (text) announceError(text);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="stack" onSubmit={(event) => void create(event)} noValidate aria-label="Create an API key">
      <div class="field">
        <label for="key-name">Key name</label>
        <input id="key-name" value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </div>
      <fieldset>
        <legend>Scopes</legend>
        {SCOPES.map((scope) => (
          <label key={scope} class="check">
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              disabled={!held.includes(scope)}
              onChange={(event) =>
                setScopes(event.currentTarget.checked ? [...scopes, scope] : scopes.filter((chosen) => chosen !== scope))
              }
            />{' '}
            {scope}
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for="key-days">Expires in (days)</label>
        <input id="key-days" type="number" min={1} max={365} value={days} onInput={(event) => setDays(event.currentTarget.value)} />
      </div>
      <button type="submit" class="primary" disabled={busy}>
        Create key
      </button>
    </form>
  );
}
