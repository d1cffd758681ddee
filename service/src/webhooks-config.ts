import {
  DEFAULT_WEBHOOK_RETRY_SCHEDULE,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  isSwitchyardError,
  parseCidr,
  parseRetrySchedule,
  webhookSettingsOf,
  type WebhookSettings,
} from '@switchyard/core';
import { no, reasonedRule, wholeNumberVariable, type EnvValues, type Refusal } from '@switchyard/runtime';

/** A lib parser as an env rule: its refusal's reason, without the variable's name (the env report names it). */
function refusing<T>(parse: (raw: string) => T): (raw: string) => T | Refusal {
  return (raw) => {
    try {
      return parse(raw);
    } catch (error) {
      if (isSwitchyardError(error)) return no(error.details[0]?.reason ?? error.message);
      throw error;
    }
  };
}

/** The webhooks' variables (CONTRACT.md "Webhooks (admin)"): read once at start. */
export const WEBHOOK_VARIABLES = Object.freeze({
  WEBHOOK_RETRY_SCHEDULE: reasonedRule(refusing((raw) => (parseRetrySchedule(raw), raw)))
    .optional()
    .default(DEFAULT_WEBHOOK_RETRY_SCHEDULE),
  WEBHOOK_TIMEOUT_MS: wholeNumberVariable(
    DEFAULT_WEBHOOK_TIMEOUT_MS,
    100,
    300_000,
    'is not a whole number of milliseconds from 100 to 300000',
  ),
  WEBHOOK_ALLOWED_NETWORKS: reasonedRule(
    refusing((raw) => {
      for (const entry of raw.split(',')) if (entry.trim() !== '') parseCidr(entry);
      return raw;
    }),
  ).optional(),
});

/** The settings deliveries are made with: validated and frozen (lib's webhookSettingsOf). */
export function webhookSettingsFrom(env: EnvValues<typeof WEBHOOK_VARIABLES>): WebhookSettings {
  return webhookSettingsOf({
    retrySchedule: env.WEBHOOK_RETRY_SCHEDULE,
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    allowedNetworks: env.WEBHOOK_ALLOWED_NETWORKS,
  });
}
