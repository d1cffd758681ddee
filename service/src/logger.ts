import { randomUUID } from 'node:crypto';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

/** Fields censored wherever they appear (up to two levels deep): credentials and whole header sets. */
const REDACTED_PATHS = ['authorization', 'headers', 'token', 'secret'].flatMap((field) => [field, `*.${field}`, `*.*.${field}`]);

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
