import type { TimeSource, TimerHandle } from '../clock.js';
import type { ClaimedDelivery, DeliveryAttempt, WebhookStore } from '../ports/webhook-store.js';
import { afterAttempt, failingTooLong } from './delivery-rules.js';
import { signWebhook } from './signature.js';
import type { WebhookSender } from './webhook-sender.js';
import type { WebhookSettings } from './webhook-settings.js';

/** A claim stays with its instance this long past the attempt's timeout; after that (a crash) any instance takes it again. */
export const CLAIM_MARGIN_MS = 30_000;

/** What the relay tells its watcher (metrics) after each attempt. */
export interface AttemptReport {
  readonly delivery: ClaimedDelivery;
  readonly attempt: DeliveryAttempt;
  readonly status: 'pending' | 'succeeded' | 'failed';
}

export interface WebhookRelayOptions {
  readonly store: WebhookStore;
  readonly sender: WebhookSender;
  readonly time: TimeSource;
  readonly settings: WebhookSettings;
  /** Sends in flight at once, over all endpoints (16). */
  readonly maxInFlight?: number;
  /** Sends in flight at once to one endpoint (1: a healthy endpoint hears its events in order). */
  readonly perEndpoint?: number;
  /**
   * Due deliveries of one endpoint claimed at once and sent one after another,
   * each recorded before the next goes out (50): one claim, not one per delivery.
   */
  readonly run?: number;
  /** How often the store is asked for due deliveries when nothing woke the relay (1 s). */
  readonly pollMs?: number;
  readonly onAttempt?: (report: AttemptReport) => void;
  /** A store failure in the background loop; the loop goes on at the next poll. */
  readonly onError?: (error: unknown) => void;
}

export interface WebhookRelay {
  /** Polls on the injected timers until `close`, and sends at once when the store tells of deliveries due (`onDue`). */
  start(): void;
  /** Looks for due deliveries now rather than at the next poll (after one in progress, if any). */
  wake(): void;
  /** Claims what is due now and sends it; answers once those sends are recorded, with how many there were. */
  runOnce(): Promise<number>;
  /** Stops polling and waits for the sends in flight. */
  close(): Promise<void>;
}

/**
 * Sends due deliveries from the outbox. Every attempt is recorded (time,
 * status, duration, error, the start of the answer) before the next is
 * planned; a crash between the send and the record sends it again after the
 * claim lapses (at least once). A slow endpoint holds at most `perEndpoint`
 * of the `maxInFlight` sends. One claim takes a run of an endpoint's due
 * deliveries, sent in order, one at a time: a crash leaves the unsent rest
 * claimed until the lease lapses, never sent.
 */
export function createWebhookRelay(options: WebhookRelayOptions): WebhookRelay {
  const { store, sender, time, settings } = options;
  const maxInFlight = options.maxInFlight ?? 16;
  const perEndpoint = options.perEndpoint ?? 1;
  const run = options.run ?? 50;
  const pollMs = options.pollMs ?? 1000;
  const busy = new Map<string, number>();
  const inFlight = new Set<Promise<unknown>>();
  let timer: TimerHandle | undefined;
  let running = false;
  let closed = false;
  /** A claim is being made: a wake meanwhile runs another after it, never beside it (two would break `perEndpoint`). */
  let ticking = false;
  let wakeAgain = false;
  let stopListening: (() => void) | undefined;

  /** Claims what is due and starts its runs; each promise answers how many deliveries its run sent. */
  const claimAndSend = async (): Promise<Promise<number>[]> => {
    const room = maxInFlight - inFlight.size;
    if (room <= 0 || closed) return [];
    const now = time.now();
    const leaseUntil = new Date(now.getTime() + settings.timeoutMs + CLAIM_MARGIN_MS);
    const claimed = await store.claimDue({ now, leaseUntil, limit: room, perEndpoint, busy, run });
    return runsOf(claimed, run).map((claims) => {
      const endpointId = claims[0]!.endpoint.id;
      busy.set(endpointId, (busy.get(endpointId) ?? 0) + 1);
      const sending = sendRun(claims, leaseUntil)
        .catch((error: unknown) => {
          options.onError?.(error);
          return 0;
        })
        .finally(() => {
          inFlight.delete(sending);
          const left = (busy.get(endpointId) ?? 1) - 1;
          if (left === 0) busy.delete(endpointId);
          else busy.set(endpointId, left);
          wake();
        });
      inFlight.add(sending);
      return sending;
    });
  };

  /**
   * Sends one endpoint's run in order, each recorded before the next goes
   * out. The rest goes back to the queue when the lease could run out during
   * the next send, when a record finds the delivery no longer this claim's
   * (disabled, deleted, sent again meanwhile: the endpoint changed), when the
   * endpoint is disabled, and on close.
   */
  const sendRun = async (claims: readonly ClaimedDelivery[], leaseUntil: Date): Promise<number> => {
    let endpoint = claims[0]!.endpoint;
    const releaseFrom = async (index: number) => {
      await store.releaseClaims(
        claims.slice(index).map((claim) => claim.delivery.id),
        leaseUntil,
        time.now(),
      );
    };
    for (const [index, { delivery }] of claims.entries()) {
      if (closed || !endpoint.enabled || time.now().getTime() + settings.timeoutMs > leaseUntil.getTime()) {
        await releaseFrom(index);
        return index;
      }
      const settled = await sendOne({ delivery, endpoint }, leaseUntil);
      if (settled === undefined) {
        await releaseFrom(index + 1);
        return index + 1;
      }
      endpoint = settled;
    }
    return claims.length;
  };

  /** Sends and records one delivery; the endpoint as the attempt left it, or undefined when the record found the claim gone. */
  const sendOne = async ({ delivery, endpoint }: ClaimedDelivery, leaseUntil: Date): Promise<ClaimedDelivery['endpoint'] | undefined> => {
    const started = time.now();
    const secrets = [endpoint.secret];
    if (endpoint.previousSecret !== undefined && endpoint.previousSecretUntil !== undefined && endpoint.previousSecretUntil > started)
      secrets.push(endpoint.previousSecret);
    const signed = signWebhook(delivery.message.id, Math.floor(started.getTime() / 1000), delivery.message.body, secrets);
    let statusCode = 0;
    let retryAfter: string | undefined;
    let response = '';
    let error = '';
    try {
      const answer = await sender.send({
        url: endpoint.url,
        headers: { ...signed, 'content-type': 'application/json', 'user-agent': 'Switchyard-Webhooks/1' },
        body: delivery.message.body,
        timeoutMs: settings.timeoutMs,
      });
      ({ statusCode, retryAfter } = answer);
      response = answer.body;
      if (statusCode < 200 || statusCode >= 300) error = `answered ${statusCode}`;
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    }
    const finished = time.now();
    const attempt: DeliveryAttempt = Object.freeze({
      at: started,
      statusCode,
      durationMs: Math.max(0, finished.getTime() - started.getTime()),
      error,
      response,
    });
    const verdict = afterAttempt({ statusCode, retryAfter }, delivery.tries, settings.retrySchedule, finished);
    const recorded = await store.recordAttempt(delivery.id, leaseUntil, attempt, verdict);
    if (!recorded) return undefined;
    options.onAttempt?.({ delivery: { delivery, endpoint }, attempt, status: verdict.status });
    return settleEndpoint(endpoint, verdict.succeeded, verdict.disableEndpoint, finished);
  };

  /**
   * Keeps the endpoint's run of failures, and disables it on a 410 or after
   * DISABLE_AFTER_FAILING_MS of failures; answers the endpoint as it now is,
   * for the next delivery of the run.
   */
  const settleEndpoint = async (
    endpoint: ClaimedDelivery['endpoint'],
    succeeded: boolean,
    gone: boolean,
    now: Date,
  ): Promise<ClaimedDelivery['endpoint']> => {
    if (succeeded) {
      if (endpoint.failingSince === undefined) return endpoint;
      await store.updateEndpoint(endpoint.workspace, endpoint.id, { failingSince: undefined, updatedAt: now });
      return { ...endpoint, failingSince: undefined };
    }
    const failingSince = endpoint.failingSince ?? now;
    if (gone || failingTooLong(failingSince, now)) {
      await store.updateEndpoint(endpoint.workspace, endpoint.id, { enabled: false, failingSince, updatedAt: now });
      return { ...endpoint, enabled: false, failingSince };
    }
    if (endpoint.failingSince === undefined) await store.updateEndpoint(endpoint.workspace, endpoint.id, { failingSince, updatedAt: now });
    return { ...endpoint, failingSince };
  };

  /** Cuts a claim into its runs: each endpoint's deliveries, in the order claimed, `run` at a time (as claimRuns counted them). */
  const runsOf = (claimed: readonly ClaimedDelivery[], length: number): ClaimedDelivery[][] => {
    const byEndpoint = new Map<string, ClaimedDelivery[][]>();
    for (const claim of claimed) {
      const runs = byEndpoint.get(claim.endpoint.id) ?? [];
      const last = runs.at(-1);
      if (last !== undefined && last.length < length) last.push(claim);
      else runs.push([claim]);
      byEndpoint.set(claim.endpoint.id, runs);
    }
    return [...byEndpoint.values()].flat();
  };

  const tick = (): void => {
    timer = undefined;
    ticking = true;
    claimAndSend()
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        ticking = false;
        if (wakeAgain) {
          wakeAgain = false;
          schedule(0);
        } else if (running && timer === undefined) schedule(pollMs);
      });
  };

  const wake = (): void => {
    if (!running) return;
    if (ticking) wakeAgain = true;
    else schedule(0);
  };

  const schedule = (ms: number): void => {
    if (!running) return;
    if (timer !== undefined) {
      if (ms > 0) return;
      time.clearTimeout(timer);
    }
    timer = time.setTimeout(tick, ms);
    timer.unref?.();
  };

  return Object.freeze({
    start() {
      if (running || closed) return;
      running = true;
      stopListening = store.onDue?.(wake);
      schedule(0);
    },
    wake,
    async runOnce() {
      const sent = await Promise.all(await claimAndSend());
      return sent.reduce((sum, count) => sum + count, 0);
    },
    async close() {
      running = false;
      closed = true;
      stopListening?.();
      time.clearTimeout(timer);
      timer = undefined;
      await Promise.allSettled([...inFlight]);
    },
  });
}
