import { invalidArgument } from '../errors.js';

/** Standard Webhooks' suggested waits between attempts (CONTRACT.md's WEBHOOK_RETRY_SCHEDULE default). */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,14h,20h,24h';
/** No single wait beyond a week, no more than 50 retries: a typo must not park a delivery for years. */
const MAX_WAIT_MS = 7 * 24 * 3600_000;
const MAX_RETRIES = 50;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

/**
 * `5s,5m,30m,2h` → the waits in milliseconds, frozen. Each entry is a whole
 * number and a unit (ms, s, m, h, d); an empty schedule means no retries.
 */
export function parseRetrySchedule(text: string, field = 'WEBHOOK_RETRY_SCHEDULE'): readonly number[] {
  const trimmed = text.trim();
  if (trimmed === '') return Object.freeze([]);
  const waits = trimmed.split(',').map((entry) => {
    const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(entry.trim());
    if (!match) throw invalidArgument(field, `"${entry.trim()}" is not a wait such as 5s, 5m, 2h or 1d`);
    const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
    if (ms > MAX_WAIT_MS) throw invalidArgument(field, `"${entry.trim()}" is longer than 7 days`);
    return ms;
  });
  if (waits.length > MAX_RETRIES) throw invalidArgument(field, `at most ${MAX_RETRIES} retries`);
  return Object.freeze(waits);
}
