import type { DestinationStream } from 'pino';
import { createLogger, type Logger } from '../../service/src/logger.js';
import type { LogLevel } from './config.js';

export type { Logger };

/** The gateway's logs: the same JSON lines and redaction as the service's, named switchyard-gateway. */
export function createGatewayLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return createLogger(level, destination, 'switchyard-gateway');
}
