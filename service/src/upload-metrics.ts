import type { UploadStore } from '@switchyard/core';
import { Gauge, type Registry } from '@switchyard/runtime';

/**
 * `switchyard_resumable_uploads_open`: unfinished, unexpired resumable
 * uploads, read from the shared database at each scrape, so every instance
 * reports the deployment's count (take `max`, not `sum`, across instances).
 * A scrape while the database is down leaves the last value.
 */
export function registerUploadGauge(registry: Registry, uploadStore: UploadStore): void {
  new Gauge({
    name: 'switchyard_resumable_uploads_open',
    help: 'Resumable uploads started and neither finished nor expired (deployment-wide, from the database).',
    registers: [registry],
    async collect() {
      try {
        this.set(await uploadStore.countOpen(new Date()));
      } catch {
        // The store's own metrics and /healthz report the outage; a scrape must not fail for it.
      }
    },
  });
}
