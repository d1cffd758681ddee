import { createLogger, type DestinationStream, type Logger, type LogLevel } from '@switchyard/runtime';

/** The service's logs: JSON lines named switchyard-grpc, with the shared redaction. */
export function createServiceLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return createLogger(level, destination, 'switchyard-grpc');
}
