import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { systemTime, type TimeSource, type TimerHandle } from '../../clock.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { MediaFacts } from './media-facts.js';
import type { FromWorker, ProbeJob, ToWorker } from './probe-protocol.js';

/** How much each file's parser may take. */
export interface ProbeLimits {
  /** Bytes a parser may read from the stored file beyond the head kept at upload; a read past them fails it. */
  readonly maxBytes: number;
  /** Milliseconds a parser may run (once loaded); then its worker is ended and the file stays undescribed. */
  readonly timeoutMs: number;
  /** Parsers running at once, each in its own worker thread. */
  readonly workers: number;
  /** Files waiting for a worker; one more is stored without facts (`busy`), for `switchyard backfill-metadata`. */
  readonly queue: number;
  /** Heap of each worker, MiB: a parser that wants more ends with its worker, not with the server. */
  readonly heapMb: number;
}

/** How a parse ended: facts (perhaps none), or why not. `busy` is the only outcome that did not look at the file. */
export type ProbeOutcome =
  | { readonly kind: 'ok'; readonly facts: MediaFacts }
  | { readonly kind: 'failed' | 'timeout' | 'busy'; readonly reason: string };

/** What one parse cost, for tests and metrics. */
export interface ProbeCost {
  readonly ms: number;
  /** Bytes read from the blob store (the head is free). */
  readonly bytesRead: number;
}

/** How long a worker may take to start and load a parser (pdf.js is megabytes of code). */
export const LOAD_MS = 30_000;

/** Idle workers end after this long, giving back their memory. */
export const IDLE_MS = 30_000;

/** What the pool uses of a worker thread: node:worker_threads' Worker, or a test's stand-in. */
export type ProbeWorker = Pick<Worker, 'on' | 'off' | 'postMessage' | 'terminate' | 'unref'>;

export interface ProbePoolOptions {
  /** The clock and timers of the load and parse deadlines, idle workers' retirement and the cost's ms (the system's by default). */
  readonly time?: TimeSource | undefined;
  /** Starts a worker running probe-worker.ts (a real thread by default; tests give a stand-in to drive the deadlines). */
  readonly startWorker?: ((options: WorkerOptions) => ProbeWorker) | undefined;
}

/** The worker's file beside this one: `.ts` when running from sources (tsx), `.js` when compiled. */
const WORKER_URL = new URL(`./probe-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * Compiled, the worker is its file. From sources (tests under tsx), the
 * worker registers tsx first: a worker's entry module does not go through the
 * loader hooks of the thread that made it.
 */
function startWorker(options: WorkerOptions): Worker {
  if (!WORKER_URL.pathname.endsWith('.ts')) return new Worker(WORKER_URL, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(
    `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); })`,
    { ...options, eval: true },
  );
}

/**
 * Runs parsers in worker threads, one file per worker at a time: at most
 * `workers` at once, `queue` waiting. The server fetches every range a parser
 * asks for from the blob store, counting the bytes against the file's bound,
 * and ends the worker (the only way to stop code that may be in a loop) at
 * the file's deadline.
 */
export class ProbePool {
  readonly #limits: ProbeLimits;
  readonly #idle: ProbeWorker[] = [];
  readonly #waiting: (() => void)[] = [];
  readonly #idleTimers = new Map<ProbeWorker, TimerHandle>();
  readonly #all = new Set<ProbeWorker>();
  readonly #time: TimeSource;
  readonly #startWorker: (options: WorkerOptions) => ProbeWorker;
  #closed = false;

  constructor(limits: ProbeLimits, options: ProbePoolOptions = {}) {
    this.#limits = limits;
    this.#time = options.time ?? systemTime;
    this.#startWorker = options.startWorker ?? startWorker;
  }

  async probe(job: ProbeJob, blobStore: BlobStore, key: string): Promise<{ outcome: ProbeOutcome; cost: ProbeCost }> {
    // Again after each wake-up: a file arriving meanwhile may have taken the worker that was freed.
    while (this.#idle.length === 0 && this.#all.size >= this.#limits.workers && !this.#closed) {
      if (this.#waiting.length >= this.#limits.queue)
        return busy(`${this.#limits.workers} parsers running and ${this.#limits.queue} files waiting`);
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    if (this.#closed) return busy('the describer is closed');
    const worker = this.#take();
    const time = this.#time;
    const now = (): number => time.now().getTime();
    let parsing = now();
    let bytesRead = 0;
    let outcome: ProbeOutcome;
    let healthy = true;
    try {
      outcome = await new Promise<ProbeOutcome>((resolve) => {
        const expire = (reason: string) => () => {
          healthy = false;
          finish({ kind: 'timeout', reason });
        };
        // Loading a parser depends on no file, but is bounded all the same; then the parser has timeoutMs.
        let timer = time.setTimeout(expire(`the parser did not load within ${LOAD_MS} ms`), LOAD_MS);
        const finish = (result: ProbeOutcome) => {
          time.clearTimeout(timer);
          worker.off('message', onMessage).off('error', onError).off('exit', onExit);
          resolve(result);
        };
        const onError = (error: Error) => {
          healthy = false;
          finish({ kind: 'failed', reason: error.message });
        };
        const onExit = () => {
          healthy = false;
          finish({ kind: 'failed', reason: 'the parser ended' });
        };
        const onMessage = (message: FromWorker) => {
          if ('loaded' in message) {
            time.clearTimeout(timer);
            timer = time.setTimeout(expire(`no answer within ${this.#limits.timeoutMs} ms`), this.#limits.timeoutMs);
            parsing = now();
            return;
          }
          if ('facts' in message) return finish({ kind: 'ok', facts: message.facts });
          if ('failed' in message) return finish({ kind: 'failed', reason: message.failed });
          const length = Math.max(0, Math.min(message.length, job.size - message.start));
          if (bytesRead + length > this.#limits.maxBytes)
            return post(worker, { read: message.read, error: `past the bound of ${this.#limits.maxBytes} bytes` });
          bytesRead += length;
          readRange(blobStore, key, message.start, length).then(
            (bytes) => post(worker, { read: message.read, bytes }, [bytes.buffer as ArrayBuffer]),
            (error: unknown) => post(worker, { read: message.read, error: error instanceof Error ? error.message : String(error) }),
          );
        };
        worker.on('message', onMessage).on('error', onError).on('exit', onExit);
        post(worker, { job });
      });
    } finally {
      this.#release(worker, healthy);
    }
    return { outcome, cost: { ms: now() - parsing, bytesRead } };
  }

  /** Ends every worker; later probes answer `busy`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of this.#waiting.splice(0)) wake();
    for (const timer of this.#idleTimers.values()) this.#time.clearTimeout(timer);
    await Promise.all([...this.#all].map((worker) => worker.terminate()));
    this.#all.clear();
    this.#idle.length = 0;
  }

  #take(): ProbeWorker {
    const idle = this.#idle.pop();
    if (idle !== undefined) {
      this.#time.clearTimeout(this.#idleTimers.get(idle));
      this.#idleTimers.delete(idle);
      return idle;
    }
    const worker = this.#startWorker({
      resourceLimits: { maxOldGenerationSizeMb: this.#limits.heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    });
    // Never what keeps a process alive.
    worker.unref();
    // A worker ended at a deadline or by its heap limit reports here too; its job has its answer by then.
    worker.on('error', () => undefined);
    this.#all.add(worker);
    return worker;
  }

  /** Back to the pool (or to the next file waiting), or ended when it may be in a bad state. */
  #release(worker: ProbeWorker, healthy: boolean): void {
    if (!healthy || this.#closed) {
      this.#all.delete(worker);
      void worker.terminate();
    } else {
      this.#idle.push(worker);
      const timer = this.#time.setTimeout(() => this.#retire(worker), IDLE_MS);
      timer.unref?.();
      this.#idleTimers.set(worker, timer);
    }
    this.#waiting.shift()?.();
  }

  #retire(worker: ProbeWorker): void {
    const at = this.#idle.indexOf(worker);
    if (at === -1) return;
    this.#idle.splice(at, 1);
    this.#idleTimers.delete(worker);
    this.#all.delete(worker);
    void worker.terminate();
  }
}

function busy(reason: string): { outcome: ProbeOutcome; cost: ProbeCost } {
  return { outcome: { kind: 'busy', reason }, cost: { ms: 0, bytesRead: 0 } };
}

function post(worker: ProbeWorker, message: ToWorker, transfer: ArrayBuffer[] = []): void {
  worker.postMessage(message, transfer);
}

/** `length` bytes of a stored file from `start`, in one buffer of its own (it is moved to the worker). */
async function readRange(blobStore: BlobStore, key: string, start: number, length: number): Promise<Uint8Array> {
  if (length === 0) return new Uint8Array(0);
  const body = await blobStore.get(key, { start, end: start + length - 1 });
  if (body === undefined) throw new Error('the file is gone');
  const out = new Uint8Array(length);
  let at = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    const piece = chunk.subarray(0, length - at);
    out.set(piece, at);
    at += piece.length;
    if (at >= length) break;
  }
  body.destroy();
  return at === length ? out : out.subarray(0, at).slice();
}
