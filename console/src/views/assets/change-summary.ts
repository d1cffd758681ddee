// Changes made elsewhere, told to screen readers politely and briefly: at
// most one announcement a second, naming the asset when it is one change and
// counting them when a burst came (a script uploading a hundred files must
// not queue a hundred announcements).
import { announce } from '../../lib/announce.js';

export type ChangeKind = 'added' | 'changed' | 'replaced' | 'deleted';

export interface SeenChange {
  readonly kind: ChangeKind;
  readonly assetId: string;
  /** The sentence for this change alone ("notes.txt was deleted elsewhere."). */
  readonly sentence: string;
}

export interface ChangeSummaryOptions {
  /** Whether this tab made the change after all (its own writes and uploads): those are left out. */
  readonly isLocal: (assetId: string) => boolean;
  readonly say?: (text: string) => void;
  readonly windowMs?: number;
  readonly timers?: { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout };
}

export interface ChangeSummary {
  add(change: SeenChange): void;
  close(): void;
}

const ORDER: readonly ChangeKind[] = ['added', 'changed', 'replaced', 'deleted'];

export function createChangeSummary(options: ChangeSummaryOptions): ChangeSummary {
  const { isLocal, say = announce, windowMs = 1000, timers = globalThis } = options;
  let pending: SeenChange[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = () => {
    timer = undefined;
    const told = pending.filter((change) => !isLocal(change.assetId));
    pending = [];
    const text = summaryOf(told);
    if (text) say(text);
  };

  return {
    add(change) {
      pending.push(change);
      timer ??= timers.setTimeout(flush, windowMs);
    },
    close() {
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
      pending = [];
    },
  };
}

/** One change in its own words; several as counts by kind. */
export function summaryOf(changes: readonly SeenChange[]): string {
  if (changes.length === 0) return '';
  if (changes.length === 1) return changes[0]!.sentence;
  const counts = ORDER.map((kind) => [kind, changes.filter((change) => change.kind === kind).length] as const).filter(([, n]) => n > 0);
  return `${changes.length} assets changed elsewhere: ${counts.map(([kind, n]) => `${n} ${kind}`).join(', ')}.`;
}
