// What Switchyard's server processes share: logging, request ids, shutdown
// signals, operator-command error reporting, duration parsing, metrics, and the
// change feed over Redis or NATS (services publish on it; gateways follow it).

export { createLogger, LOG_LEVELS } from './logger.js';
export { infoLine } from './info-line.js';
export type { LineFields } from './info-line.js';
export type { Logger, LogLevel } from './logger.js';
export type { DestinationStream } from 'pino';
export { requestIdFrom, REQUEST_ID_KEY } from './request-id.js';
export { onShutdownSignals } from './shutdown-signals.js';
export { runCommand, explain, CommandExit, UsageError } from './run-command.js';
export type { Command, CommandOutput } from './run-command.js';
export { parseCommandArgs } from './command-args.js';
export type { CommandOptions, CommandValues } from './command-args.js';
export { parseDuration } from './duration.js';
export * from './env/index.js';
export { z } from 'zod';
export * from './metrics/index.js';
export { Counter, Gauge, Histogram, Registry } from 'prom-client';
export * from './tracing/index.js';
export { backoffMs, untilUp } from './feed/broker-feed.js';
export type { BrokerFeed, ConnectionErrorSink } from './feed/broker-feed.js';
export { decodeRevision, encodeRevision, FEED_CHANNEL_PATTERN, FEED_CHANNEL_PREFIX } from './feed/feed-message.js';
export type { FeedMessage } from './feed/feed-message.js';
export { NatsChangeFeed } from './feed/nats-change-feed.js';
export { RedisChangeFeed } from './feed/redis-change-feed.js';
export { CALLER_LIFETIME, callerSignal, EndableLifetime } from './caller-lifetime.js';
export type { CallerLifetime } from './caller-lifetime.js';
export { handOver, hasFreshChunks, isHandedOver, withFreshChunks } from './handed-over.js';
