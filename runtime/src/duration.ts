import { UsageError } from './run-command.js';

const UNIT_SECONDS: Readonly<Record<string, number>> = Object.freeze({ s: 1, m: 60, h: 3600, d: 86_400 });

/**
 * Parses a command-line lifetime such as `30s`, `15m`, `1h` or `7d` into
 * whole seconds; anything else is a UsageError naming the option.
 */
export function parseDuration(text: string, option = '--ttl'): number {
  const match = /^(\d{1,7})([smhd])$/.exec(text.trim());
  const amount = Number(match?.[1]);
  const unit = UNIT_SECONDS[match?.[2] ?? ''];
  if (!match || unit === undefined || amount <= 0) {
    throw new UsageError(`${option}: ${JSON.stringify(text)} is not a duration such as 30s, 15m, 1h or 7d`);
  }
  return amount * unit;
}
