import { randomUUID } from 'node:crypto';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

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
export function createLogger(level: LogLevel, destination?: DestinationStream, service = 'switchyard-grpc'): Logger {
  const options = { level, base: { service }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}

/** Request ids are echoed into logs and metadata, so accept only short printable ones. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `x-request-id` when it is a sane one, else a fresh id. */
export function requestIdFrom(supplied: unknown): string {
  return typeof supplied === 'string' && REQUEST_ID.test(supplied) ? supplied : randomUUID();
}
