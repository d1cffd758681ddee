// The upload policy, for workspace:admin: allowed types, the largest file,
// the default visibility (PUT /v1/workspace/policy). Field errors from the
// server show at their field.
import { useEffect, useState } from 'preact/hooks';
import { errorText, SwitchyardRestError, type Api } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { formatBytes } from '../../lib/format.js';
import { loadPolicy, policyState, setKnownPolicy } from '../../lib/policy.js';
import { missingScope } from '../../lib/session.js';

type Field = 'allowedTypes' | 'maxUploadBytes' | 'defaultVisibility';
const MIB = 1024 * 1024;

export function PolicyEditor({ api }: { readonly api: Api }) {
  const refused = missingScope('workspace:admin');
  const state = policyState.value;
  const [types, setTypes] = useState('');
  const [maxMib, setMaxMib] = useState('');
  const [visibility, setVisibility] = useState<'public' | 'private'>('public');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => void loadPolicy(api), []);
  useEffect(() => {
    if (state.kind !== 'known') return;
    setTypes(state.policy.allowedTypes.join('\n'));
    setMaxMib(String(Math.round((state.policy.maxUploadBytes / MIB) * 100) / 100));
    setVisibility(state.policy.defaultVisibility);
  }, [state]);

  if (refused) {
    return (
      <section class="panel" aria-labelledby="policy-title">
        <h2 id="policy-title">Upload policy</h2>
        <p class="scope-note">Only a token with the workspace:admin scope can read and change the policy. {refused}</p>
      </section>
    );
  }

  async function save(event: Event) {
    event.preventDefault();
    setErrors({});
    const mib = Number(maxMib);
    if (!Number.isFinite(mib) || mib < 0) return setErrors({ maxUploadBytes: 'must be a number of MiB, 0 or more' });
    setBusy(true);
    try {
      const saved = await api.setWorkspacePolicy({
        allowedTypes: types
          .split(/[\s,]+/)
          .map((type) => type.trim())
          .filter(Boolean),
        maxUploadBytes: Math.round(mib * MIB),
        defaultVisibility: visibility,
      });
      setKnownPolicy(saved);
      announce('Policy saved.');
    } catch (error) {
      if (error instanceof SwitchyardRestError) {
        const found: Partial<Record<Field, string>> = {};
        for (const detail of error.details) {
          const field = (['allowedTypes', 'maxUploadBytes', 'defaultVisibility'] as const).find(
            (name) => detail.field === name || detail.field.startsWith(`${name}[`) || detail.field.startsWith(`${name}.`),
          );
          if (field) found[field] = detail.reason;
        }
        setErrors(found);
      }
      const text = errorText(error, 'Saving the policy');
      if (text) announceError(text);
    } finally {
      setBusy(false);
    }
  }

  const described = (field: Field, help: string) =>
    errors[field] ? { 'aria-invalid': 'true' as const, 'aria-describedby': `policy-${field}-error ${help}` } : { 'aria-describedby': help };
  const message = (field: Field) =>
    errors[field] && (
      <p id={`policy-${field}-error`} class="field-error">
        {errors[field]}
      </p>
    );

  return (
    <form class="panel stack" aria-labelledby="policy-title" onSubmit={(event) => void save(event)} noValidate>
      <h2 id="policy-title">Upload policy</h2>
      {state.kind === 'loading' && <p class="loading">Loading…</p>}
      {state.kind === 'unknown' && <p class="callout callout-error">{state.reason}</p>}
      <fieldset disabled={busy || state.kind !== 'known'} class="stack">
        <div class="field">
          <label for="policy-types">Allowed types</label>
          <textarea
            id="policy-types"
            rows={4}
            spellcheck={false}
            value={types}
            onInput={(event) => setTypes(event.currentTarget.value)}
            {...described('allowedTypes', 'policy-types-help')}
          />
          <span id="policy-types-help" class="help">
            One media type per line (image/png) or a family (image/*). Empty allows every type. Files are checked by their sniffed type.
          </span>
          {message('allowedTypes')}
        </div>
        <div class="field">
          <label for="policy-max">Largest upload (MiB)</label>
          <input
            id="policy-max"
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            value={maxMib}
            onInput={(event) => setMaxMib(event.currentTarget.value)}
            {...described('maxUploadBytes', 'policy-max-help')}
          />
          <span id="policy-max-help" class="help">
            {Number.isFinite(Number(maxMib)) ? `${formatBytes(Math.round(Number(maxMib) * MIB))}; ` : ''}at most the server's
            MAX_UPLOAD_BYTES.
          </span>
          {message('maxUploadBytes')}
        </div>
        <div class="field">
          <label for="policy-visibility">Default visibility</label>
          <select
            id="policy-visibility"
            value={visibility}
            onChange={(event) => setVisibility(event.currentTarget.value as 'public' | 'private')}
            {...described('defaultVisibility', 'policy-visibility-help')}
          >
            <option value="public">Public</option>
            <option value="private">Private</option>
          </select>
          <span id="policy-visibility-help" class="help">
            For uploads that do not choose.
          </span>
          {message('defaultVisibility')}
        </div>
        <div class="actions">
          <button type="submit" class="primary">
            Save policy
          </button>
        </div>
      </fieldset>
    </form>
  );
}
