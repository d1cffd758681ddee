// Editing an asset's name, label and visibility. Only the fields that
// changed are sent (PATCH); the server's field errors show at their field.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText, SwitchyardRestError, type Api, type Asset, type AssetChanges } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { missingScope } from '../../lib/session.js';
import { ScopeNote } from '../../ui/ScopeNote.js';

type Field = 'name' | 'label' | 'visibility';

export function AssetEditForm({
  asset,
  api,
  onSaved,
  disabled = false,
}: {
  readonly asset: Asset;
  readonly api: Api;
  readonly onSaved: (asset: Asset) => void;
  /** The asset is gone: nothing to save. */
  readonly disabled?: boolean;
}) {
  const [name, setName] = useState(asset.name ?? '');
  const [label, setLabel] = useState(asset.label);
  const [visibility, setVisibility] = useState(asset.visibility);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);
  const refused = missingScope('assets:write');

  // Another save, a replace or a change made elsewhere brings new values; a field being edited here keeps its edit.
  const shown = useRef(asset);
  useEffect(() => {
    const before = shown.current;
    shown.current = asset;
    setName((current) => (current === (before.name ?? '') ? (asset.name ?? '') : current));
    setLabel((current) => (current === before.label ? asset.label : current));
    setVisibility((current) => (current === before.visibility ? asset.visibility : current));
  }, [asset]);

  const changes: AssetChanges = {
    ...(name !== (asset.name ?? '') ? { name } : {}),
    ...(label !== asset.label ? { label } : {}),
    ...(visibility !== asset.visibility ? { visibility } : {}),
  };
  const dirty = Object.keys(changes).length > 0;

  async function save(event: Event) {
    event.preventDefault();
    if (!dirty) return;
    setBusy(true);
    setErrors({});
    try {
      const saved = await api.updateAsset(asset.id, changes);
      onSaved(saved);
      announce('Changes saved.');
    } catch (error) {
      if (error instanceof SwitchyardRestError && error.details.length > 0) {
        const found: Partial<Record<Field, string>> = {};
        for (const detail of error.details)
          if (detail.field === 'name' || detail.field === 'label' || detail.field === 'visibility') found[detail.field] = detail.reason;
        setErrors(found);
      }
      const text = errorText(error, 'Saving');
      if (text) announceError(text);
    } finally {
      setBusy(false);
    }
  }

  const invalid = (field: Field) => (errors[field] ? { 'aria-invalid': 'true' as const, 'aria-describedby': `edit-${field}-error` } : {});
  const message = (field: Field) =>
    errors[field] && (
      <p id={`edit-${field}-error`} class="field-error">
        {errors[field]}
      </p>
    );

  return (
    <form class="detail-section stack" onSubmit={(event) => void save(event)} aria-labelledby="edit-title">
      <h3 id="edit-title">Edit</h3>
      <fieldset disabled={!!refused || busy || disabled} class="stack">
        <div class="field">
          <label for="edit-name">Name</label>
          <input
            id="edit-name"
            type="text"
            maxLength={255}
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
            {...invalid('name')}
          />
          {message('name')}
        </div>
        <div class="field">
          <label for="edit-label">Label</label>
          <input id="edit-label" type="text" value={label} onInput={(event) => setLabel(event.currentTarget.value)} {...invalid('label')} />
          {message('label')}
        </div>
        <div class="field">
          <label for="edit-visibility">Visibility</label>
          <select
            id="edit-visibility"
            value={visibility}
            onChange={(event) => setVisibility(event.currentTarget.value as Asset['visibility'])}
            {...invalid('visibility')}
          >
            <option value="public">Public: anyone with the url</option>
            <option value="private">Private: signed links only</option>
          </select>
          {message('visibility')}
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={!dirty} aria-describedby={refused ? 'edit-scope' : undefined}>
            Save
          </button>
        </div>
      </fieldset>
      <ScopeNote id="edit-scope" reason={refused} />
    </form>
  );
}
