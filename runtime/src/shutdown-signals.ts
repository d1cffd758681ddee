import type { Logger } from './logger.js';

/**
 * On SIGINT or SIGTERM: `stop()` (which finishes requests in flight), then
 * exit 0, or 1 when stopping failed. A second signal exits at once.
 */
export function onShutdownSignals(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) {
        log.warn({ signal }, 'second signal: exiting now');
        process.exit(1);
      }
      stopping = true;
      log.info({ signal }, 'shutting down: finishing work in flight');
      stop().then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}
