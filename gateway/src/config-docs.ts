// What each of the gateway's variables means (config.ts holds the rules):
// docs/configuration.md is generated from this record, and
// test/docs/configuration-docs.test.ts fails when a variable of `gatewayEnv`
// has no entry here. Defaults come from the schemas unless given.
import { SHARED_VARIABLE_DOCS, type VariableDocs } from '@switchyard/runtime';
import { GATEWAY_DEFAULTS, type gatewayEnv } from './config.js';

const limits = GATEWAY_DEFAULTS.clientLimits;

export const GATEWAY_VARIABLE_DOCS = Object.freeze({
  ...SHARED_VARIABLE_DOCS,
  SERVICE_URL: {
    meaning:
      'the gRPC service, e.g. `http://127.0.0.1:50051`; several, comma-separated, or a DNS name resolving to several (re-resolved periodically), are balanced round-robin over the healthy ones',
    default: 'required',
    // `switchyard start` calls its own service in-process.
    appliesTo: ['gateway'],
  },
  CDN_URL: {
    meaning:
      "public base of file urls, the same for every service and gateway: the service makes every asset's url from it, the gateway serves files under its path; point it at your CDN, which fetches from the gateway's `/files`",
    default: { start: '`http://HOST:PORT/files`', gateway: '`http://HOST:PORT/files`' },
  },
  JSON_BODY_LIMIT_BYTES: { meaning: 'largest JSON request body' },
  CORS_ORIGINS: { meaning: 'comma-separated allowed origins, or `*` for any (tokens travel in a header, never in cookies)' },
  REQUEST_TIMEOUT_MS: { meaning: 'time to send a whole request, body included, then 408; `0` = none. Downloads are not counted' },
  HEADERS_TIMEOUT_MS: {
    meaning: 'time to send the request line and headers, then 408; may not exceed `REQUEST_TIMEOUT_MS`',
    default: `\`${limits.headersTimeoutMs}\`, or \`REQUEST_TIMEOUT_MS\` if shorter`,
  },
  BODY_IDLE_TIMEOUT_MS: { meaning: 'time a request body may go without a byte, then 408, nothing stored; `0` = none' },
  MAX_CONNECTIONS: { meaning: 'open client connections; beyond it 503 with `Retry-After: 1`' },
  MAX_INFLIGHT_UPLOADS: { meaning: 'uploads and replaces streaming at once; beyond it 503 with `Retry-After: 1`' },
  TRUST_PROXY: { meaning: 'behind a proxy, take the public origin of tus `Location` urls from `X-Forwarded-Proto` and `X-Forwarded-Host`' },
  CONSOLE: {
    meaning: '`off` serves no web console at `/console/` (the API reference at `/docs` stays)',
    // The schema's default is the parsed `true`; people write `on`.
    default: '`on`',
  },
} satisfies VariableDocs<typeof gatewayEnv.shape>);
