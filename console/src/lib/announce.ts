// Messages for the live regions (ui/Announcer.tsx): screen readers read them
// as they change, sighted people see them as a notice at the bottom.
import { signal } from '@preact/signals';

export interface Notice {
  readonly text: string;
  readonly kind: 'status' | 'error';
  /** Distinguishes two notices with the same text, so the second is announced too. */
  readonly serial: number;
}

export const notice = signal<Notice | null>(null);
let serial = 0;
let clearTimer: ReturnType<typeof setTimeout> | undefined;

export function announce(text: string): void {
  show({ text, kind: 'status', serial: ++serial }, 6000);
}

export function announceError(text: string): void {
  // Errors stay until dismissed or replaced: they may need reading twice.
  show({ text, kind: 'error', serial: ++serial }, 0);
}

export function dismissNotice(): void {
  clearTimeout(clearTimer);
  notice.value = null;
}

function show(next: Notice, ms: number): void {
  clearTimeout(clearTimer);
  notice.value = next;
  if (ms > 0) clearTimer = setTimeout(() => notice.value?.serial === next.serial && (notice.value = null), ms);
}
