import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Fields censored where they can turn up: at the top of a log entry and inside
 * what gets logged whole (an error, its cause, an HTTP request or response,
 * call metadata). Named paths, not wildcards: pino's wildcard redaction cost
 * more than the rest of a request's logging together (see bench/README.md).
 */
const SECRET_FIELDS = ['authorization', 'headers', 'token', 'secret'];
const CONTAINERS = ['', 'err.', 'err.cause.', 'err.response.', 'err.$response.', 'err.request.', 'err.metadata.', 'req.', 'res.', 'request.', 'response.', 'metadata.'];
const REDACTED_PATHS = CONTAINERS.flatMap((container) => SECRET_FIELDS.map((field) => `${container}${field}`));

/**
 * Structured JSON logs, one line per event, named by `service`. Code never
 * logs tokens, secrets or headers wholesale; the redaction is a second line
 * of defence should one slip in.
 *
 * Without a destination, lines go to stdout through pino's default writer,
 * which is asynchronous (lines logged during a write go out together in the
 * next; the rest is flushed at exit). A blocking write per line cost 5 % more
 * server CPU per request under the rest-get-asset load
 * (bench/tools/compare-builds.ts get, 8 alternating rounds, medians 210 and
 * 222 µs).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream, service = 'switchyard'): Logger {
  const options = { level, base: { service }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
