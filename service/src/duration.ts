import { invalidArgument } from '../../lib/src/errors.js';

const UNIT_SECONDS: Readonly<Record<string, number>> = Object.freeze({ s: 1, m: 60, h: 3600, d: 86_400 });

/** Parses a lifetime such as `30s`, `15m`, `1h` or `7d` into whole seconds. */
export function parseDuration(text: string, field = 'ttl'): number {
  const match = /^(\d{1,7})([smhd])$/.exec(text.trim());
  const amount = Number(match?.[1]);
  const unit = UNIT_SECONDS[match?.[2] ?? ''];
  if (!match || unit === undefined || amount <= 0) {
    throw invalidArgument(field, `${JSON.stringify(text)} is not a duration such as 30s, 15m, 1h or 7d`);
  }
  return amount * unit;
}
