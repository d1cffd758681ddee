// A plan, then its write: what a restore or an import would change (a dry
// run), shown before anything is written, then written with the plan's
// revision as expectedRevision, so nothing is written over a table that moved
// since. A 409 for that says so and offers to plan again.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { RestApplyResult } from '@switchyard/client/web';
import { errorText, isAbort, SwitchyardRestError } from '../../lib/api.js';
import { RouteChangeList, planChanges } from './RouteChangeList.js';

export interface PlanPanelProps {
  /** The dry run. */
  readonly plan: () => Promise<RestApplyResult>;
  /** The write, against the planned revision. */
  readonly write: (expectedRevision: number) => Promise<RestApplyResult>;
  readonly confirmLabel: string;
  /** After the write (the dialog closes). */
  readonly onDone: (result: RestApplyResult) => void;
  readonly onCancel: () => void;
  /** Lines for a refusal (an import names each bad entry's place in its file); the default is errorText's sentence. */
  readonly describe?: (error: unknown) => readonly string[] | undefined;
  /** Cancel takes focus first (a confirmation: Enter never writes by accident). */
  readonly focusCancel?: boolean;
}

type State =
  | { readonly kind: 'planning' }
  | { readonly kind: 'planned'; readonly plan: RestApplyResult }
  | { readonly kind: 'writing'; readonly plan: RestApplyResult }
  | { readonly kind: 'moved'; readonly plan: RestApplyResult; readonly message: string }
  | { readonly kind: 'failed'; readonly plan?: RestApplyResult; readonly lines: readonly string[] };

export function PlanPanel({ plan, write, confirmLabel, onDone, onCancel, describe, focusCancel }: PlanPanelProps) {
  const [state, setState] = useState<State>({ kind: 'planning' });
  const cancel = useRef<HTMLButtonElement>(null);
  const live = useRef(true);
  useEffect(() => () => void (live.current = false), []);
  useEffect(() => {
    if (focusCancel) cancel.current?.focus();
    void replan();
  }, []);

  const failure = (error: unknown) => describe?.(error) ?? [errorText(error) ?? ''];

  async function replan() {
    setState({ kind: 'planning' });
    try {
      const planned = await plan();
      if (live.current) setState({ kind: 'planned', plan: planned });
    } catch (error) {
      if (live.current && !isAbort(error)) setState({ kind: 'failed', lines: failure(error) });
    }
  }

  async function confirm(planned: RestApplyResult) {
    setState({ kind: 'writing', plan: planned });
    try {
      const result = await write(planned.revision);
      if (live.current) onDone(result);
    } catch (error) {
      if (!live.current || isAbort(error)) return;
      if (isStale(error))
        setState({
          kind: 'moved',
          plan: planned,
          message: `The route table moved since this plan was made (${error.message}). Nothing was written: plan again to see what it would change now.`,
        });
      else setState({ kind: 'failed', plan: planned, lines: failure(error) });
    }
  }

  const planned = state.kind === 'planning' ? undefined : state.plan;
  const changes = planned ? planChanges(planned) : [];
  return (
    <div class="plan">
      <p role="status" class="plan-summary">
        {state.kind === 'planning' ? 'Planning…' : planned ? summary(planned, changes.length) : ''}
      </p>
      {planned && changes.length > 0 && <RouteChangeList changes={changes} planned />}
      {state.kind === 'moved' && (
        <div class="callout callout-warning" role="alert">
          <p>{state.message}</p>
        </div>
      )}
      {state.kind === 'failed' && (
        <div class="callout callout-error" role="alert">
          {state.lines.map((line, index) => (
            <p key={index}>{line}</p>
          ))}
        </div>
      )}
      <div class="actions">
        <button type="button" ref={cancel} onClick={onCancel}>
          Cancel
        </button>
        {state.kind === 'moved' ? (
          <button type="button" class="primary" onClick={() => void replan()}>
            Plan again
          </button>
        ) : (
          <button
            type="button"
            class="danger"
            disabled={!planned || changes.length === 0 || state.kind === 'writing' || state.kind === 'failed'}
            onClick={() => planned && void confirm(planned)}
          >
            {confirmLabel}
          </button>
        )}
      </div>
    </div>
  );
}

function summary(plan: RestApplyResult, changes: number): string {
  if (changes === 0) return `Nothing to change at revision ${plan.revision} (${plan.unchanged} unchanged).`;
  return `Against revision ${plan.revision}: ${counts(plan)}, ${plan.unchanged} unchanged.`;
}

/** "2 to create, 1 to change, 0 to delete", as the CLI's summary line. */
export function counts(plan: RestApplyResult, done = false): string {
  const [create, change, remove] = done ? ['created', 'changed', 'deleted'] : ['to create', 'to change', 'to delete'];
  return `${plan.created.length} ${create}, ${plan.updated.length} ${change}, ${plan.deleted.length} ${remove}`;
}

/** A 409 because expectedRevision is no longer the table's. */
function isStale(error: unknown): error is SwitchyardRestError {
  return (
    error instanceof SwitchyardRestError && error.code === 'aborted' && error.details.some((detail) => detail.field === 'expectedRevision')
  );
}
