// What SHARED_VARIABLES mean (docs/configuration.md is generated from this).
import type { VariableDocs } from './variable-docs.js';
import type { SHARED_VARIABLES } from './variables.js';

export const SHARED_VARIABLE_DOCS = Object.freeze({
  HOST: { meaning: 'bind address of every port the process opens' },
  PORT: {
    meaning: 'REST gateway port; `0` picks a free one (printed)',
    // The service alone serves no HTTP: PORT only names the default CDN_URL, which `switchyard service` requires.
    appliesTo: ['start', 'gateway'],
  },
  MAX_UPLOAD_BYTES: { meaning: 'largest accepted file; a workspace policy may only lower it' },
  LOG_LEVEL: {
    meaning:
      '`fatal` … `trace`, `silent`; logs are JSON lines (pino) on stdout without tokens or secrets, one per REST request and one per service call, written in batches (16 KiB, or 100 ms after a line; pending lines at exit)',
  },
  METRICS_PORT: {
    meaning:
      'Prometheus text at `http://HOST:METRICS_PORT/metrics` (one registry for both layers in `npm start`); `0` picks a free port (printed), `off` serves none',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    meaning:
      'export request and call spans over OTLP/HTTP to this collector, e.g. `http://127.0.0.1:4318`; unset, no spans leave the process',
  },
  OTEL_SERVICE_NAME: {
    meaning: 'the `service.name` of exported spans',
    default: { start: '`switchyard`', service: '`switchyard-service`', gateway: '`switchyard-gateway`' },
  },
  EVENTS_URL: {
    meaning:
      "a Redis (`redis://`, `rediss://`) or NATS (`nats://`) that carries route and asset changes between instances. Services publish and follow it, so watchers wake at once instead of polling every `WATCH_POLL_MS` (a lost message delays a change by at most the 30 s safety poll, never loses it). A gateway in front of services follows their asset changes on it, so a file replaced, deleted or made private through any instance is no longer answered from its memory (304s; while the feed is up GETs, HEADs and ranges too, small files' bytes included) a moment after the change (a 5 s age then bounds only a lost message; while the feed is down, only 304s are answered, within that age)",
    default: 'unset: each instance polls',
  },
} satisfies VariableDocs<typeof SHARED_VARIABLES>);
