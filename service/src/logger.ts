import { randomUUID } from 'node:crypto';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

/**
 * Structured JSON logs. Code never logs tokens or metadata wholesale; the
 * redaction below is a second line of defence should a header object slip in.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'switchyard-grpc' },
    redact: {
      paths: ['authorization', '*.authorization', '*.*.authorization', 'token', '*.token', 'secret', '*.secret'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Request ids are echoed into logs and metadata, so accept only short printable ones. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `x-request-id` when it is a sane one, else a fresh id. */
export function requestIdFrom(supplied: unknown): string {
  return typeof supplied === 'string' && REQUEST_ID.test(supplied) ? supplied : randomUUID();
}
