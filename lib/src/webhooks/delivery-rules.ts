import type { AttemptOutcome } from '../ports/webhook-store.js';

/** An endpoint failing this long without a success is disabled (Svix's rule). */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600_000;
/** A Retry-After longer than this is read as this: a receiver cannot park a delivery for longer than a day per try. */
const MAX_RETRY_AFTER_MS = 24 * 3600_000;

/** What one attempt got: an HTTP answer, or none (`statusCode` 0). */
export interface AttemptResult {
  readonly statusCode: number;
  /** The answer's Retry-After header, when it had one. */
  readonly retryAfter?: string | undefined;
}

export interface AttemptVerdict extends AttemptOutcome {
  /** 410 Gone: the receiver asked to hear nothing more. */
  readonly disableEndpoint: boolean;
  readonly succeeded: boolean;
}

/**
 * The delivery's state after an attempt. A 2xx succeeded; 410 fails it and
 * disables the endpoint; otherwise the next attempt waits the schedule's
 * next entry (or a 429's or 503's Retry-After), and once the schedule is
 * spent the delivery is `failed`. Redirects count as failures: they are
 * never followed.
 */
export function afterAttempt(result: AttemptResult, triesBefore: number, schedule: readonly number[], now: Date): AttemptVerdict {
  const tries = triesBefore + 1;
  if (result.statusCode >= 200 && result.statusCode < 300)
    return { status: 'succeeded', tries, nextAttemptAt: undefined, disableEndpoint: false, succeeded: true };
  if (result.statusCode === 410) return { status: 'failed', tries, nextAttemptAt: undefined, disableEndpoint: true, succeeded: false };
  const scheduled = schedule[tries - 1];
  if (scheduled === undefined) return { status: 'failed', tries, nextAttemptAt: undefined, disableEndpoint: false, succeeded: false };
  const asked = result.statusCode === 429 || result.statusCode === 503 ? retryAfterMs(result.retryAfter, now) : undefined;
  const wait = asked ?? scheduled;
  return { status: 'pending', tries, nextAttemptAt: new Date(now.getTime() + wait), disableEndpoint: false, succeeded: false };
}

/** Retry-After as seconds or an HTTP date, in milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: Date): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  const ms = /^\d{1,10}$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now.getTime();
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** Whether an endpoint failing since `failingSince` is to be disabled at `now`. */
export function failingTooLong(failingSince: Date | undefined, now: Date): boolean {
  return failingSince !== undefined && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS;
}
