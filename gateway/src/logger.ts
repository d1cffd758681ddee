import { createLogger, type DestinationStream, type Logger, type LogLevel } from '@switchyard/runtime';

/** The gateway's logs: the same JSON lines and redaction as the service's, named switchyard-gateway. */
export function createGatewayLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return createLogger(level, destination, 'switchyard-gateway');
}
