import { SwitchyardError, type ErrorDetail } from '../errors.js';

/** Every event a webhook can be sent (CONTRACT.md, "Webhooks (admin)"). */
export const WEBHOOK_EVENT_TYPES = [
  'asset.created',
  'asset.replaced',
  'asset.updated',
  'asset.deleted',
  'route.created',
  'route.updated',
  'route.deleted',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** At most this many filters per endpoint: enough for every type, small enough to match on every write. */
export const MAX_EVENT_FILTERS = 32;

const KNOWN = new Set<string>(WEBHOOK_EVENT_TYPES);
const PREFIXES = new Set(WEBHOOK_EVENT_TYPES.map((type) => type.slice(0, type.indexOf('.'))));

/**
 * Validates an endpoint's `events`: exact types, `prefix.*` of a known
 * prefix, or `*`; at least one, no duplicates. Answers them frozen, in the
 * order given; every bad entry is named (`events[2]`), none is dropped silently.
 */
export function eventFiltersOf(input: unknown, field = 'events'): readonly string[] {
  if (!Array.isArray(input) || input.length === 0)
    throw new SwitchyardError('invalid_argument', `${field}: at least one event type or pattern is required`, [
      { field, reason: 'at least one event type or pattern (for example "asset.*", "route.created" or "*") is required' },
    ]);
  if (input.length > MAX_EVENT_FILTERS)
    throw new SwitchyardError('invalid_argument', `${field}: at most ${MAX_EVENT_FILTERS} entries`, [
      { field, reason: `at most ${MAX_EVENT_FILTERS} entries` },
    ]);
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  input.forEach((entry: unknown, i) => {
    const name = `${field}[${i}]`;
    if (typeof entry !== 'string' || !isFilter(entry))
      details.push({
        field: name,
        reason: `unknown event type or pattern ${JSON.stringify(entry)}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}, asset.*, route.*, *`,
      });
    else if (seen.has(entry)) details.push({ field: name, reason: `${entry} is listed twice` });
    else seen.add(entry);
  });
  if (details.length > 0) throw new SwitchyardError('invalid_argument', `${field}: ${details.map((d) => d.reason).join('; ')}`, details);
  return Object.freeze([...seen]);
}

function isFilter(entry: string): boolean {
  if (entry === '*' || KNOWN.has(entry)) return true;
  return entry.endsWith('.*') && PREFIXES.has(entry.slice(0, -2));
}

/** Whether an endpoint with `filters` hears `type`. `webhook.test` is sent only on request, never by a pattern. */
export function matchesEvent(filters: readonly string[], type: string): boolean {
  if (type === 'webhook.test') return false;
  const prefix = type.slice(0, type.indexOf('.'));
  return filters.some((filter) => filter === '*' || filter === type || filter === `${prefix}.*`);
}
