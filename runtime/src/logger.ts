import { writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';
import { loggedDetail } from './error-details.js';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Fields censored where they can turn up: at the top of a log entry and inside
 * what gets logged whole (an error, its cause, an HTTP request or response,
 * call metadata). Named paths, not wildcards, which pino redacts faster.
 * Justified by rest-get-asset (bench/hand-written-parts.md#named-redaction-paths).
 */
const SECRET_FIELDS = ['authorization', 'headers', 'token', 'secret'];
const CONTAINERS = [
  '',
  'err.',
  'err.cause.',
  'err.response.',
  'err.$response.',
  'err.request.',
  'err.metadata.',
  'req.',
  'res.',
  'request.',
  'response.',
  'metadata.',
];
const REDACTED_PATHS = CONTAINERS.flatMap((container) => SECRET_FIELDS.map((field) => `${container}${field}`));

/** Pending lines are handed to the writer once they reach this many characters, */
const BATCH_CHARS = 16 * 1024;
/** or this long after the first of them was logged. */
const BATCH_MS = 100;
/** At exit, how long a full pipe may keep the last lines waiting before they are given up. */
const EXIT_WRITE_PATIENCE_MS = 1_000;

/**
 * One writer to stdout for every logger of the process (inside `npm start`
 * the gateway's and the service's share it, so their lines stay whole and in
 * order). Lines are gathered and handed to pino's asynchronous writer
 * (sonic-boom) 16 KiB at a time, or 100 ms after the first pending one was
 * logged; at exit, what the writer holds and what is pending are written
 * synchronously (a SIGKILL loses at most those 100 ms; a write already under
 * way is the writer's, as with pino's default).
 *
 * Handed over line by line, every line cost sonic-boom a byte count of the
 * string it was gathering, and often a write of its own: a round trip through
 * libuv's thread pool, which on this 2-core machine means waking a thread
 * beside the busy ones. Lines gathered per turn of the event loop, or written
 * with a blocking write each, cost more.
 * Justified by rest-get-asset (bench/hand-written-parts.md#batched-stdout).
 */
class BatchedStdout implements DestinationStream {
  readonly #fd: number;
  readonly #writer: ReturnType<typeof pino.destination>;
  #pending: string[] = [];
  #chars = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(fd: number) {
    this.#fd = fd;
    this.#writer = pino.destination({ dest: fd, sync: false });
    // After pino's own exit hook (registered when the writer was made), which flushes only what the writer holds.
    process.once('exit', () => {
      const rest = this.#take();
      try {
        this.#writer.flushSync();
      } catch {
        // Destroyed (a broken pipe): nothing more can go out.
        return;
      }
      if (rest !== '') writeFullySync(this.#fd, rest);
    });
  }

  write(line: string): void {
    this.#pending.push(line);
    this.#chars += line.length;
    if (this.#chars >= BATCH_CHARS) this.#handOver();
    else this.#timer ??= setTimeout(this.#handOver, BATCH_MS).unref();
  }

  readonly #handOver = (): void => {
    const lines = this.#take();
    if (lines !== '') this.#writer.write(lines);
  };

  /** The pending lines as one string, no longer pending. */
  #take(): string {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const lines = this.#pending.join('');
    this.#pending = [];
    this.#chars = 0;
    return lines;
  }
}

/** Writes all of `text` to `fd` now, through partial writes and a full non-blocking pipe (for a while); gives up on any other error. */
function writeFullySync(fd: number, text: string): void {
  let rest = Buffer.from(text);
  const giveUpAt = performance.now() + EXIT_WRITE_PATIENCE_MS;
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || performance.now() > giveUpAt) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

let stdout: DestinationStream | undefined;

/**
 * Where a logger without a destination writes: the shared BatchedStdout, or
 * `process.stdout` itself when something has replaced its `write` (a test
 * runner, an agent), as pino does.
 */
function defaultDestination(): DestinationStream {
  const replaced = process.stdout.write !== (process.stdout.constructor as { prototype: NodeJS.WriteStream }).prototype.write;
  if (replaced) return process.stdout;
  // A worker thread has no stdout fd of its own: its lines go to fd 1, as with pino.
  return (stdout ??= new BatchedStdout(process.stdout.fd || 1));
}

/**
 * Structured JSON logs, one line per event, named by `service`. Code never
 * logs tokens, secrets or headers wholesale; the redaction is a second line
 * of defence should one slip in. Without a destination, lines go to stdout
 * (BatchedStdout).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream, service = 'switchyard'): Logger {
  const options = {
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError },
  };
  return pino(options, destination ?? defaultDestination());
}

/** pino's error serializer, with gRPC error details decoded (an ErrorInfo's reason, a BadRequest's violations) instead of printed as bytes. */
function serializeError(error: Error): ReturnType<typeof pino.stdSerializers.err> {
  const serialized = pino.stdSerializers.err(error);
  const details: unknown = serialized?.['details'];
  if (Array.isArray(details)) serialized['details'] = details.map(loggedDetail);
  return serialized;
}
