import { no, reasonedRule, redactUrlPassword, rule, shownAs, type EnvValues, type Refusal, type Refuse } from '@switchyard/runtime';

/** Where route changes fan out between service instances (EVENTS_URL); none: each instance polls the database. */
export type EventsConfig = { readonly kind: 'redis'; readonly url: string } | { readonly kind: 'nats'; readonly url: string };

/** Where per-workspace rate limits are counted: this process, or a Redis every instance shares. */
export type RateLimitStoreConfig = { readonly kind: 'memory' } | { readonly kind: 'redis'; readonly url: string };

export interface ScaleConfig {
  readonly events: EventsConfig | undefined;
  readonly rateLimitStore: RateLimitStoreConfig;
}

/** EVENTS_URL, RATE_LIMIT_STORE and RATE_LIMIT_REDIS_URL (docs/scaling-out.md). */
export const SCALE_VARIABLES = Object.freeze({
  EVENTS_URL: shownAs(
    reasonedRule((raw) => brokerUrl(raw, ['redis:', 'rediss:', 'nats:', 'tls:'], 'a redis://, rediss:// or nats:// URL')).optional(),
    redactUrlPassword,
  ),
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
  if (typeof events === 'string' && isRedis(events)) return;
  refuse('RATE_LIMIT_STORE', 'is redis, but no Redis is named: set RATE_LIMIT_REDIS_URL, or EVENTS_URL to a redis:// URL', {
    showValue: false,
  });
}

export function scaleConfigFrom(env: ScaleEnv): ScaleConfig {
  const events: EventsConfig | undefined =
    env.EVENTS_URL === undefined ? undefined : { kind: isRedis(env.EVENTS_URL) ? 'redis' : 'nats', url: env.EVENTS_URL };
  const rateLimitStore: RateLimitStoreConfig =
    env.RATE_LIMIT_STORE === 'memory' ? { kind: 'memory' } : { kind: 'redis', url: env.RATE_LIMIT_REDIS_URL ?? env.EVENTS_URL! };
  return { events, rateLimitStore };
}

function isRedis(url: string): boolean {
  return url.startsWith('redis:') || url.startsWith('rediss:');
}

function brokerUrl(raw: string, protocols: readonly string[], expected: string): string | Refusal {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return no(`is not a URL (expected ${expected})`);
  }
  if (!protocols.includes(url.protocol)) return no(`is not ${expected}`);
  if (!url.hostname) return no('names no host');
  return raw;
}
