// The filters: type family, exact label, and a name prefix search. They live
// in the url (?type=&label=&q=), so a filtered view can be linked to.
import { FAMILIES, filteredInBrowser, type TypeFamily } from '../../lib/asset-types.js';

export interface FilterValues {
  readonly family: TypeFamily | '';
  readonly label: string;
  readonly q: string;
}

const FAMILY_NAMES: Record<TypeFamily, string> = {
  image: 'Images',
  video: 'Videos',
  audio: 'Audio',
  document: 'Documents',
  other: 'Other',
};

export function AssetFilters({ values, onChange }: { readonly values: FilterValues; readonly onChange: (values: FilterValues) => void }) {
  const active = values.family !== '' || values.label !== '' || values.q !== '';
  return (
    <form role="search" aria-label="Filter assets" class="filters" onSubmit={(event) => event.preventDefault()}>
      <div class="field">
        <label for="filter-type">Filter by type</label>
        <select
          id="filter-type"
          value={values.family}
          onChange={(event) => onChange({ ...values, family: event.currentTarget.value as TypeFamily | '' })}
        >
          <option value="">All types</option>
          {FAMILIES.map((family) => (
            <option key={family} value={family}>
              {FAMILY_NAMES[family]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-label">Filter by label</label>
        <input
          id="filter-label"
          type="text"
          value={values.label}
          placeholder="exact label"
          onInput={(event) => onChange({ ...values, label: event.currentTarget.value })}
        />
      </div>
      <div class="field field-grow">
        <label for="filter-q">Search by name</label>
        <input
          id="filter-q"
          type="search"
          value={values.q}
          placeholder="start of the file name"
          onInput={(event) => onChange({ ...values, q: event.currentTarget.value })}
        />
      </div>
      {active && (
        <button type="button" class="link-button" onClick={() => onChange({ family: '', label: '', q: '' })}>
          Clear filters
        </button>
      )}
      {filteredInBrowser(values.family) && (
        <p class="help filters-note">Documents and other types are picked out in the browser: the list reads pages until it has enough.</p>
      )}
    </form>
  );
}
