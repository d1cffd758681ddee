import {
  brokerUrl,
  eventsConfigFrom,
  isRedisUrl,
  reasonedRule,
  redactUrlPassword,
  rule,
  SHARED_VARIABLES,
  shownAs,
  type EnvValues,
  type EventsConfig,
  type Refuse,
} from '@switchyard/runtime';

export type { EventsConfig } from '@switchyard/runtime';

/** Where per-workspace rate limits are counted: this process, or a Redis every instance shares. */
export type RateLimitStoreConfig = { readonly kind: 'memory' } | { readonly kind: 'redis'; readonly url: string };

export interface ScaleConfig {
  readonly events: EventsConfig | undefined;
  readonly rateLimitStore: RateLimitStoreConfig;
}

/** EVENTS_URL, RATE_LIMIT_STORE and RATE_LIMIT_REDIS_URL (docs/scaling-out.md). */
export const SCALE_VARIABLES = Object.freeze({
  EVENTS_URL: SHARED_VARIABLES.EVENTS_URL,
  RATE_LIMIT_STORE: rule((raw) => (raw === 'memory' || raw === 'redis' ? raw : undefined), 'is not a rate limit store (memory or redis)')
    .optional()
    .default('memory'),
  RATE_LIMIT_REDIS_URL: shownAs(
    reasonedRule((raw) => brokerUrl(raw, ['redis:', 'rediss:'], 'a redis:// or rediss:// URL')).optional(),
    redactUrlPassword,
  ),
});

type ScaleEnv = EnvValues<typeof SCALE_VARIABLES>;

/** RATE_LIMIT_STORE=redis needs a Redis: its own URL, else EVENTS_URL when that names one. */
export function checkScaleVariables(values: Record<string, unknown>, refuse: Refuse): void {
  if (values['RATE_LIMIT_STORE'] !== 'redis' || values['RATE_LIMIT_REDIS_URL'] !== undefined) return;
  const events = values['EVENTS_URL'];
  if (typeof events === 'string' && isRedisUrl(events)) return;
  refuse('RATE_LIMIT_STORE', 'is redis, but no Redis is named: set RATE_LIMIT_REDIS_URL, or EVENTS_URL to a redis:// URL', {
    showValue: false,
  });
}

export function scaleConfigFrom(env: ScaleEnv): ScaleConfig {
  const events: EventsConfig | undefined = eventsConfigFrom(env.EVENTS_URL);
  const rateLimitStore: RateLimitStoreConfig =
    env.RATE_LIMIT_STORE === 'memory' ? { kind: 'memory' } : { kind: 'redis', url: env.RATE_LIMIT_REDIS_URL ?? env.EVENTS_URL! };
  return { events, rateLimitStore };
}
