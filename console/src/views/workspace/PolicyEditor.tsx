// The upload policy, for workspace:admin: allowed types, the largest file,
// the default visibility, and the retention of versions and trash (PUT
// /v1/workspace/policy). A PUT replaces the whole policy, so the fields this
// form does not show are sent back as read. Field errors from the server show
// at their field.
import { useEffect, useState } from 'preact/hooks';
import { errorText, SwitchyardRestError, type Api } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { formatBytes } from '../../lib/format.js';
import { loadPolicy, policyState, setKnownPolicy } from '../../lib/policy.js';
import { missingScope } from '../../lib/session.js';

const FIELDS = ['allowedTypes', 'maxUploadBytes', 'defaultVisibility', 'keepVersions', 'retentionDays'] as const;
type Field = (typeof FIELDS)[number];
const MIB = 1024 * 1024;

export function PolicyEditor({ api }: { readonly api: Api }) {
  const refused = missingScope('workspace:admin');
  const state = policyState.value;
  const [types, setTypes] = useState('');
  const [maxMib, setMaxMib] = useState('');
  const [visibility, setVisibility] = useState<'public' | 'private'>('public');
  const [keepVersions, setKeepVersions] = useState('');
  const [retentionDays, setRetentionDays] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => void loadPolicy(api), []);
  useEffect(() => {
    if (state.kind !== 'known') return;
    setTypes(state.policy.allowedTypes.join('\n'));
    setMaxMib(String(Math.round((state.policy.maxUploadBytes / MIB) * 100) / 100));
    setVisibility(state.policy.defaultVisibility);
    setKeepVersions(String(state.policy.keepVersions));
    setRetentionDays(String(state.policy.retentionDays));
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
    const kept = wholeNumber(keepVersions);
    const days = wholeNumber(retentionDays);
    if (kept === undefined) return setErrors({ keepVersions: 'must be a whole number, 0 to 100' });
    if (days === undefined) return setErrors({ retentionDays: 'must be a whole number of days, 0 to 365' });
    if (state.kind !== 'known') return;
    setBusy(true);
    try {
      const saved = await api.setWorkspacePolicy({
        allowedTypes: types
          .split(/[\s,]+/)
          .map((type) => type.trim())
          .filter(Boolean),
        maxUploadBytes: Math.round(mib * MIB),
        defaultVisibility: visibility,
        stripImageMetadata: state.policy.stripImageMetadata,
        keepVersions: kept,
        retentionDays: days,
      });
      setKnownPolicy(saved);
      announce('Policy saved.');
    } catch (error) {
      if (error instanceof SwitchyardRestError) {
        const found: Partial<Record<Field, string>> = {};
        for (const detail of error.details) {
          const field = FIELDS.find(
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
        <div class="field">
          <label for="policy-keep-versions">Versions kept per asset</label>
          <input
            id="policy-keep-versions"
            type="number"
            min={0}
            max={100}
            step={1}
            inputMode="numeric"
            value={keepVersions}
            onInput={(event) => setKeepVersions(event.currentTarget.value)}
            {...described('keepVersions', 'policy-keep-versions-help')}
          />
          <span id="policy-keep-versions-help" class="help">
            0 to 100: the files replaces leave behind, newest kept; 0 deletes a replaced file at once.
          </span>
          {message('keepVersions')}
        </div>
        <div class="field">
          <label for="policy-retention-days">Retention (days)</label>
          <input
            id="policy-retention-days"
            type="number"
            min={0}
            max={365}
            step={1}
            inputMode="numeric"
            value={retentionDays}
            onInput={(event) => setRetentionDays(event.currentTarget.value)}
            {...described('retentionDays', 'policy-retention-days-help')}
          />
          <span id="policy-retention-days-help" class="help">
            0 to 365: how long versions and deleted assets are kept before gc purges them; 0 keeps neither.
          </span>
          {message('retentionDays')}
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

/** A whole number typed in a field, or undefined (the server checks the range). */
function wholeNumber(typed: string): number | undefined {
  const value = Number(typed.trim());
  return typed.trim() !== '' && Number.isInteger(value) ? value : undefined;
}
