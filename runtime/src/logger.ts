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

/** Pending lines are handed to the writer once they reach this many characters, */
const BATCH_CHARS = 16 * 1024;
/** or this long after the first of them was logged. */
const BATCH_MS = 100;

/**
 * One writer to stdout for every logger of the process (inside `npm start`
 * the gateway's and the service's share it, so their lines stay whole and in
 * order). Lines are gathered and handed to pino's asynchronous writer
 * (sonic-boom) 16 KiB at a time, or 100 ms after the first pending one was
 * logged; whatever is pending is written synchronously at exit (a SIGKILL
 * loses at most those 100 ms).
 *
 * Handed over line by line, every line cost sonic-boom a byte count of the
 * string it was gathering, and often a write of its own: a round trip through
 * libuv's thread pool, which on this 2-core machine means waking a thread
 * beside the busy ones. The two lines of a REST request (the gateway's access
 * line and the service's call line) were 19 % of the server's CPU per request
 * under the rest-get-asset load, measured by leaving them out
 * (bench/tools/compare-builds.ts get, 8 rounds: 183 vs 148 µs per request);
 * gathered per turn of the event loop, still 12 %. A blocking write per line
 * cost 5 % more than sonic-boom's default.
 */
class BatchedStdout implements DestinationStream {
  readonly #writer = pino.destination({ dest: 1, sync: false });
  #pending: string[] = [];
  #chars = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    // After pino's own exit hook (registered when the writer was made), which flushes only what the writer holds.
    process.once('exit', () => {
      this.#handOver();
      this.#writer.flushSync();
    });
  }

  write(line: string): void {
    this.#pending.push(line);
    this.#chars += line.length;
    if (this.#chars >= BATCH_CHARS) this.#handOver();
    else this.#timer ??= setTimeout(this.#handOver, BATCH_MS).unref();
  }

  readonly #handOver = (): void => {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const lines = this.#pending;
    if (lines.length === 0) return;
    this.#pending = [];
    this.#chars = 0;
    this.#writer.write(lines.join(''));
  };
}

let stdout: DestinationStream | undefined;

/**
 * Structured JSON logs, one line per event, named by `service`. Code never
 * logs tokens, secrets or headers wholesale; the redaction is a second line
 * of defence should one slip in. Without a destination, lines go to stdout
 * (BatchedStdout).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream, service = 'switchyard'): Logger {
  const options = { level, base: { service }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return pino(options, destination ?? (stdout ??= new BatchedStdout()));
}
