// The lines of a route diff, as the CLI prints a plan: "+" a route created,
// "~" one changed (with what changed, before → after), "-" one deleted. The
// history and every plan (restore, import) show changes this way. The signs
// are for the eye; screen readers hear "Created", "Changed", "Deleted".
import { useState } from 'preact/hooks';
import type { RestRoute } from '@switchyard/client/web';

export interface RouteChange {
  readonly kind: 'create' | 'update' | 'delete';
  readonly before: RestRoute | null;
  readonly after: RestRoute | null;
}

/** Lines shown before "Show all": a 1,000-route apply does not flood the page. */
const SHOWN = 20;

const SIGN = { create: '+', update: '~', delete: '-' } as const;
const WORD = { create: 'Created', update: 'Changed', delete: 'Deleted' } as const;
const PLANNED = { create: 'Create', update: 'Change', delete: 'Delete' } as const;

export function RouteChangeList({ changes, planned = false }: { readonly changes: readonly RouteChange[]; readonly planned?: boolean }) {
  const [all, setAll] = useState(false);
  const shown = all ? changes : changes.slice(0, SHOWN);
  return (
    <>
      <ul class="route-diff">
        {shown.map((change, index) => (
          <li key={index} class={`diff-${change.kind}`}>
            <span class="diff-sign" aria-hidden="true">
              {SIGN[change.kind]}
            </span>
            <span class="visually-hidden">{(planned ? PLANNED : WORD)[change.kind]} </span>
            <ChangeText change={change} />
          </li>
        ))}
      </ul>
      {shown.length < changes.length && (
        <button type="button" class="link-button" onClick={() => setAll(true)}>
          Show all {changes.length} changes
        </button>
      )}
    </>
  );
}

function ChangeText({ change }: { readonly change: RouteChange }) {
  const route = (change.after ?? change.before)!;
  const head = (
    <span class="mono">
      {route.method} {route.path}
    </span>
  );
  if (change.kind !== 'update' || !change.before || !change.after)
    return (
      <>
        {head} → <span class="mono">{route.handler}</span>
        {route.middleware.length > 0 && <span class="muted"> (middleware {route.middleware.join(', ')})</span>}
        {route.owner && <span class="muted"> · owner {route.owner}</span>}
      </>
    );
  const { before, after } = change;
  const fields = differences(before, after);
  return (
    <>
      <span class="mono">
        {before.method} {before.path}
      </span>
      <ul class="diff-fields">
        {fields.map(([name, from, to]) => (
          <li key={name}>
            {name}: <span class="mono">{from || '(none)'}</span> → <span class="mono">{to || '(none)'}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** What an update changed, field by field: [name, before, after]. */
export function differences(before: RestRoute, after: RestRoute): [string, string, string][] {
  const pairs: [string, string, string][] = [
    ['path', before.path, after.path],
    ['middleware', before.middleware.join(', '), after.middleware.join(', ')],
    ['handler', before.handler, after.handler],
    ['owner', before.owner, after.owner],
  ];
  return pairs.filter(([, from, to]) => from !== to);
}

/** An apply's or rollback's plan as change lines, in the order the CLI prints them. */
export function planChanges(plan: {
  readonly created: readonly RestRoute[];
  readonly updated: readonly { readonly before: RestRoute; readonly after: RestRoute }[];
  readonly deleted: readonly RestRoute[];
}): RouteChange[] {
  return [
    ...plan.created.map((after) => ({ kind: 'create' as const, before: null, after })),
    ...plan.updated.map(({ before, after }) => ({ kind: 'update' as const, before, after })),
    ...plan.deleted.map((before) => ({ kind: 'delete' as const, before, after: null })),
  ];
}
