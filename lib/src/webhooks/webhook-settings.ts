import { invalidArgument } from '../errors.js';
import { createAddressPolicy, parseCidr, type AddressPolicy } from './destination.js';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE, parseRetrySchedule } from './retry-schedule.js';

/** CONTRACT.md's WEBHOOK_TIMEOUT_MS default. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;

/** How deliveries are made: read once from configuration, validated, frozen. */
export interface WebhookSettings {
  /** Waits between attempts, in milliseconds: attempt 1 at once, then one more after each wait. */
  readonly retrySchedule: readonly number[];
  /** An attempt without a 2xx by then failed. */
  readonly timeoutMs: number;
  /** The networks named in WEBHOOK_ALLOWED_NETWORKS, normalized. */
  readonly allowedNetworks: readonly string[];
  readonly addresses: AddressPolicy;
}

/** The raw values, as the environment holds them; absent ones take the contract's defaults. */
export interface WebhookSettingsInput {
  readonly retrySchedule?: string | undefined;
  readonly timeoutMs?: number | undefined;
  /** Comma-separated CIDRs. */
  readonly allowedNetworks?: string | undefined;
}

export function webhookSettingsOf(input: WebhookSettingsInput = {}): WebhookSettings {
  const timeoutMs = input.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 300_000)
    throw invalidArgument('WEBHOOK_TIMEOUT_MS', 'a whole number of milliseconds from 100 to 300000');
  const allowedNetworks = (input.allowedNetworks ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => parseCidr(entry).join('/'));
  return Object.freeze({
    retrySchedule: parseRetrySchedule(input.retrySchedule ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE),
    timeoutMs,
    allowedNetworks: Object.freeze(allowedNetworks),
    addresses: createAddressPolicy(allowedNetworks),
  });
}
