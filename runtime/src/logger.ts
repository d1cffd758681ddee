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
 */
export function createLogger(level: LogLevel, destination: DestinationStream = standardOutput(), service = 'switchyard'): Logger {
  return pino({ level, base: { service }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}

/** Log bytes held while standard output cannot keep up; past this, lines are dropped rather than memory grown. */
const MAX_PENDING_LOG_BYTES = 16 * 1024 * 1024;

let stdout: DestinationStream | undefined;

/**
 * One asynchronous standard output for every logger of the process (the
 * all-in-one server has two): a line is written at once, and lines logged
 * while a write is under way go out together in the next, instead of a
 * blocking write per line on the event loop. pino flushes it on exit. An A/B
 * of `npm start` under the file-serve-16kib load (bench/tools/compare-builds.ts
 * file, 6 rounds): req/s 1.01-1.08 per round, CPU per request 0.95.
 */
function standardOutput(): DestinationStream {
  return (stdout ??= pino.destination({ dest: 1, sync: false, maxLength: MAX_PENDING_LOG_BYTES }));
}
