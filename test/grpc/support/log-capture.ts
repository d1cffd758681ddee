import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export type LogLine = Record<string, unknown>;

/** A real pino logger whose JSON lines the test can read and wait for. */
export class LogCapture {
  readonly text: string[] = [];
  readonly logger: Logger;
  #waiters: Array<{ predicate: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];

  constructor(level = 'info') {
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        for (const raw of chunk.toString('utf8').split('\n').filter(Boolean)) this.#add(raw);
        done();
      },
    });
    this.logger = pino({ level, base: { service: 'test' } }, sink);
  }

  lines(): LogLine[] {
    return this.text.map((raw) => JSON.parse(raw) as LogLine);
  }

  /** Resolves with the first line (already logged or still to come) that matches. */
  waitFor(predicate: (line: LogLine) => boolean): Promise<LogLine> {
    const seen = this.lines().find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ predicate, resolve }));
  }

  #add(raw: string): void {
    this.text.push(raw);
    const line = JSON.parse(raw) as LogLine;
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.predicate(line)) return true;
      waiter.resolve(line);
      return false;
    });
  }
}

/** The per-call log line of a method, optionally for one request id. */
export function callLine(method: string, requestId?: string): (line: LogLine) => boolean {
  return (line) => line['msg'] === 'call' && line['method'] === method && (requestId === undefined || line['requestId'] === requestId);
}
