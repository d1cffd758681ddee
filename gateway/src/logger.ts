import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

/**
 * Structured JSON logs. The gateway logs no request headers at all; the
 * redaction is a second line of defence should a header object slip in.
 */
export function createGatewayLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'switchyard-gateway' },
    redact: {
      paths: ['authorization', '*.authorization', '*.*.authorization', 'headers', '*.headers', 'token', '*.token'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
