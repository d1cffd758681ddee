import { DEFAULT_KEY_MAX_TTL_MS } from '@switchyard/core';
import { rule, type EnvValues } from '@switchyard/runtime';

const UNIT_SECONDS: Readonly<Record<string, number>> = Object.freeze({ s: 1, m: 60, h: 3600, d: 86_400 });
const MIN_SECONDS = 60;
const MAX_SECONDS = 3650 * 86_400;

/** KEY_MAX_TTL: how long an API key may live at most, as `90d`, `12h`, `30m` or whole seconds; a minute to ten years. */
function parseKeyTtl(raw: string): number | undefined {
  const match = /^(\d{1,10})([smhd]?)$/.exec(raw.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * (UNIT_SECONDS[match[2] || 's'] ?? 1);
  return seconds >= MIN_SECONDS && seconds <= MAX_SECONDS ? seconds * 1000 : undefined;
}

export const KEY_VARIABLES = Object.freeze({
  KEY_MAX_TTL: rule(parseKeyTtl, 'is not a duration from 60s to 3650d (such as 90d, 12h or 3600)')
    .optional()
    .default(DEFAULT_KEY_MAX_TTL_MS),
});

/** What the service's API keys are held to. */
export interface KeysConfig {
  /** KEY_MAX_TTL in ms: no key is made to live longer. */
  readonly maxTtlMs: number;
}

export function keysConfigFrom(env: EnvValues<typeof KEY_VARIABLES>): KeysConfig {
  return { maxTtlMs: env.KEY_MAX_TTL };
}
