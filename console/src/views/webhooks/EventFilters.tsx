// The event filters of an endpoint as checkboxes: everything, each family
// (`asset.*`, `route.*`) and each type. The server validates them again.
import type { ComponentChildren } from 'preact';

/** The filters the console offers, grouped as the docs list them (docs/webhooks.md, "Events and payloads"). */
export const EVENT_FILTER_GROUPS: readonly (readonly string[])[] = [
  ['*'],
  ['asset.*', 'asset.created', 'asset.replaced', 'asset.updated', 'asset.deleted'],
  ['route.*', 'route.created', 'route.updated', 'route.deleted'],
];

const LABELS: Readonly<Record<string, string>> = {
  '*': 'every event (*)',
  'asset.*': 'every asset event (asset.*)',
  'route.*': 'every route event (route.*)',
};

export function EventFilters({
  legend,
  chosen,
  onChange,
  children,
}: {
  readonly legend: string;
  readonly chosen: readonly string[];
  readonly onChange: (next: readonly string[]) => void;
  readonly children?: ComponentChildren;
}) {
  return (
    <fieldset class="event-filters">
      <legend>{legend}</legend>
      {EVENT_FILTER_GROUPS.map((group) => (
        <div class="event-group" key={group[0]}>
          {group.map((filter) => (
            <label key={filter} class="check">
              <input
                type="checkbox"
                checked={chosen.includes(filter)}
                onChange={(event) => onChange(event.currentTarget.checked ? [...chosen, filter] : chosen.filter((kept) => kept !== filter))}
              />{' '}
              {LABELS[filter] ?? filter}
            </label>
          ))}
        </div>
      ))}
      {children}
    </fieldset>
  );
}
