// Hand-written for speed: an upload's sha256 computed in worker threads, so the
// event loop that serves every other request does not spend its time hashing.
// Justified by read-p99-during-upload and peer-tus-upload-single-patch
// (bench/README.md, bench/hand-written-parts.md#off-thread-hash): on a processor
// without the SHA extensions sha256 runs at about 300 MB/s, 27.5 % of the
// all-in-one server's samples during uploads were Hash.update on the main thread.
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { SwitchyardError } from '../errors.js';

/** A running hash fed in order; its digest comes when all it was fed is hashed. */
export interface RunningHash {
  /**
   * Takes `bytes` (copied: the caller may reuse its buffer at once). A promise
   * means the hash is behind: await it before feeding more, so that bytes do
   * not pile up in memory faster than they are hashed.
   */
  update(bytes: Uint8Array): Promise<void> | undefined;
  /** A hash that goes on from the bytes fed so far, independent of this one. */
  copy(): RunningHash;
  /** The digest of all bytes fed; the hash is used up. */
  digest(): Promise<Buffer>;
  /** Gives the hash up (an aborted upload): its bytes in flight are dropped, its digest is never made. Safe to repeat. */
  dispose(): void;
}

/**
 * Bytes are copied into shared slabs of this size, one message to the worker
 * each: 256 messages for a 256 MiB upload. The gateway's coalescer hands on
 * chunks of about 1 MiB. Each slab is posted to its worker once and named by
 * its index after: posting a SharedArrayBuffer anew for every slab made
 * postMessage 9 % of the server's samples during uploads (bench/hand-written-parts.md#off-thread-hash).
 */
const SLAB_BYTES = 1024 * 1024;
/** Slabs a hash may have at its worker at once before `update` asks to wait (double buffering). */
const IN_FLIGHT = 2;
/** Free slabs a worker keeps for its next hashes; more are given up. */
const SPARE_SLABS = 4;
/**
 * A hash whose bytes never filled a slab and are at most this many is
 * finished on the calling thread: the worker's round trip costs more than
 * hashing them there (bench/hand-written-parts.md#off-thread-hash has the
 * figures of both).
 */
export const INLINE_BYTES = 64 * 1024;

/** The worker: one node:crypto Hash per id, fed the slabs in the order they were posted (a port keeps order). */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
const slabs = [];
// Hashes that failed, until dropped: later slabs of theirs must not start a fresh hash.
const failed = new Map();
parentPort.on('message', (m) => {
  try {
    if (failed.has(m.id) && m.op !== 'drop') throw new Error(failed.get(m.id));
    if (m.op === 'update') {
      let hash = hashes.get(m.id);
      if (hash === undefined) hashes.set(m.id, (hash = createHash(m.algorithm)));
      hash.update(new Uint8Array(slabs[m.slab], 0, m.length));
      parentPort.postMessage({ op: 'hashed', id: m.id, slab: m.slab });
    } else if (m.op === 'copy') {
      const from = hashes.get(m.from);
      if (from === undefined) throw new Error(failed.get(m.from) || 'the hash copied from is gone');
      hashes.set(m.id, from.copy());
    } else if (m.op === 'digest') {
      const hash = hashes.get(m.id) || createHash(m.algorithm);
      hashes.delete(m.id);
      parentPort.postMessage({ op: 'digest', id: m.id, digest: new Uint8Array(hash.digest()) });
    } else if (m.op === 'slab') {
      slabs[m.index] = m.slab;
    } else if (m.op === 'unslab') {
      slabs[m.index] = undefined;
    } else if (m.op === 'drop') {
      hashes.delete(m.id);
      failed.delete(m.id);
    } else if (m.op === 'count') {
      parentPort.postMessage({ op: 'count', id: m.id, count: hashes.size + failed.size });
    }
  } catch (error) {
    const message = String((error && error.message) || error);
    hashes.delete(m.id);
    failed.set(m.id, message);
    // Only what is answered answers with the failure (the other side counts answers).
    if (m.op === 'update' || m.op === 'digest') parentPort.postMessage({ op: 'failed', id: m.id, message, slab: m.slab });
  }
});
`;

type ToWorker =
  | { op: 'update'; id: number; algorithm: string; slab: number; length: number }
  | { op: 'slab'; id: 0; index: number; slab: SharedArrayBuffer }
  | { op: 'unslab'; id: 0; index: number }
  | { op: 'copy'; id: number; from: number }
  | { op: 'digest'; id: number; algorithm: string }
  | { op: 'drop'; id: number }
  | { op: 'count'; id: number };

type FromWorker =
  | { op: 'hashed'; id: number; slab: number }
  | { op: 'digest'; id: number; digest: Uint8Array }
  | { op: 'count'; id: number; count: number }
  | { op: 'failed'; id: number; message: string; slab?: number };

/** A slab of a worker's, by its index there. */
interface Slab {
  readonly index: number;
  readonly bytes: Uint8Array;
}

/** One worker thread, the hashes it holds and the slabs it was given. */
class Slot {
  readonly worker: Worker;
  readonly hashes = new Map<number, OffThreadHash>();
  readonly #spare: Slab[] = [];
  /** Indexes of slabs given up, for the next new ones. */
  readonly #freeIndexes: number[] = [];
  /** Every slab the worker holds, by index. */
  readonly #slabs: (Slab | undefined)[] = [];
  readonly counts = new Map<number, (count: number) => void>();
  dead: SwitchyardError | undefined;
  /** Messages posted whose answer has not come: the worker keeps the process alive only while some are. */
  #awaited = 0;

  constructor(onDeath: (slot: Slot) => void) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    this.worker.on('message', (message: FromWorker) => {
      if (--this.#awaited === 0) this.worker.unref();
      // A slab the worker is done with comes back here, whatever became of its hash meanwhile.
      if (message.op === 'hashed' || (message.op === 'failed' && message.slab !== undefined)) {
        const slab = this.#slabs[message.slab!];
        if (slab !== undefined) this.giveSlab(slab);
      }
      if (message.op === 'count') {
        this.counts.get(message.id)?.(message.count);
        this.counts.delete(message.id);
      } else this.hashes.get(message.id)?.receive(message);
    });
    const die = (reason: string) => {
      if (this.dead) return;
      this.dead = new SwitchyardError('internal', `the hashing worker ended: ${reason}`);
      onDeath(this);
      for (const hash of [...this.hashes.values()]) hash.fail(this.dead);
      for (const answer of this.counts.values()) answer(0);
      this.counts.clear();
    };
    this.worker.on('error', (error) => die(error.message));
    this.worker.on('exit', (code) => die(`exit code ${code}`));
    // Idle, never what keeps a process alive (after the listeners: adding one refs the worker's port again).
    this.worker.unref();
  }

  takeSlab(): Slab {
    const spare = this.#spare.pop();
    if (spare !== undefined) return spare;
    const index = this.#freeIndexes.pop() ?? this.#slabs.length;
    const shared = new SharedArrayBuffer(SLAB_BYTES);
    this.post({ op: 'slab', id: 0, index, slab: shared });
    const slab = { index, bytes: new Uint8Array(shared) };
    this.#slabs[index] = slab;
    return slab;
  }

  giveSlab(slab: Slab): void {
    if (this.#spare.length < SPARE_SLABS) return void this.#spare.push(slab);
    this.post({ op: 'unslab', id: 0, index: slab.index });
    this.#slabs[slab.index] = undefined;
    this.#freeIndexes.push(slab.index);
  }

  post(message: ToWorker): void {
    // Each of these is answered once (a failure answers instead); copy and drop are not answered.
    if ((message.op === 'update' || message.op === 'digest' || message.op === 'count') && this.#awaited++ === 0) this.worker.ref();
    this.worker.postMessage(message);
  }
}

/**
 * Worker threads that hash, shared by all uploads of a process: each hash is
 * fed by one worker (the least busy when its first slab goes), so its bytes
 * are hashed in order while other hashes go on beside it. Workers start on
 * first use and live until `close`.
 */
export class HashPool {
  readonly #size: number;
  readonly #slots: Slot[] = [];
  #nextId = 1;
  #closed = false;

  /** `size` workers at most: by default one per core but one (the event loop's), at least one, at most four. */
  constructor(size = Math.max(1, Math.min(4, availableParallelism() - 1))) {
    this.#size = size;
  }

  /** A new running hash of `algorithm` (a node:crypto name). */
  create(algorithm = 'sha256'): RunningHash {
    if (this.#closed) throw new SwitchyardError('unavailable', 'the hashing pool is closed');
    return new OffThreadHash(this, algorithm);
  }

  /** Hashes held by the workers (not yet digested or dropped), for tests: an aborted upload leaves none. */
  async held(): Promise<number> {
    const counts = await Promise.all(
      this.#slots.map(
        (slot) =>
          new Promise<number>((resolve) => {
            const id = this.#nextId++;
            slot.counts.set(id, resolve);
            slot.post({ op: 'count', id });
          }),
      ),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const slots = this.#slots.splice(0);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  /** @internal The worker a hash's first slab goes to: an idle one, else a new one while there is room, else the least busy. */
  slotFor(): Slot {
    const leastBusy = this.#slots.reduce<Slot | undefined>((a, b) => (a === undefined || b.hashes.size < a.hashes.size ? b : a), undefined);
    if (leastBusy !== undefined && (leastBusy.hashes.size === 0 || this.#slots.length >= this.#size)) return leastBusy;
    const slot = new Slot((dead) => {
      const at = this.#slots.indexOf(dead);
      if (at !== -1) this.#slots.splice(at, 1);
    });
    this.#slots.push(slot);
    return slot;
  }

  /** @internal */
  nextId(): number {
    return this.#nextId++;
  }
}

class OffThreadHash implements RunningHash {
  readonly #pool: HashPool;
  readonly #algorithm: string;
  readonly id: number;
  /** The worker whose slabs this hash fills, from its first bytes on. */
  #slot: Slot | undefined;
  /** Whether the worker holds this hash's state (a slab or a copy went to it); until then it may finish inline. */
  #posted = false;
  /** The slab being filled, and how much of it is. */
  #slab: Slab | undefined;
  #filled = 0;
  /** Slabs posted and not yet hashed, oldest first. */
  readonly #inFlight: Slab[] = [];
  #wake: (() => void) | undefined;
  #digest: { resolve: (digest: Buffer) => void; reject: (error: Error) => void } | undefined;
  #failure: SwitchyardError | undefined;
  #done = false;

  constructor(pool: HashPool, algorithm: string) {
    this.#pool = pool;
    this.#algorithm = algorithm;
    this.id = pool.nextId();
  }

  update(bytes: Uint8Array): Promise<void> | undefined {
    this.#usable();
    let at = 0;
    while (at < bytes.length) {
      this.#slab ??= (this.#slot ?? this.#attach(this.#pool.slotFor())).takeSlab();
      const length = Math.min(bytes.length - at, SLAB_BYTES - this.#filled);
      this.#slab.bytes.set(bytes.subarray(at, at + length), this.#filled);
      this.#filled += length;
      at += length;
      if (this.#filled === SLAB_BYTES) this.#post();
    }
    if (this.#inFlight.length < IN_FLIGHT || this.#failure) return undefined;
    return new Promise<void>((resolve) => (this.#wake = resolve));
  }

  copy(): RunningHash {
    this.#usable();
    const twin = new OffThreadHash(this.#pool, this.#algorithm);
    if (!this.#posted) {
      // All bytes so far are in the slab being filled: the twin starts with a copy of them.
      if (this.#slab !== undefined) void twin.update(this.#slab.bytes.subarray(0, this.#filled));
      return twin;
    }
    if (this.#filled > 0) this.#post();
    const slot = twin.#attach(this.#slot!);
    twin.#posted = true;
    slot.post({ op: 'copy', id: twin.id, from: this.id });
    return twin;
  }

  async digest(): Promise<Buffer> {
    this.#usable();
    this.#done = true;
    if (!this.#posted && this.#filled <= INLINE_BYTES) {
      const digest = createHash(this.#algorithm)
        .update(this.#slab?.bytes.subarray(0, this.#filled) ?? new Uint8Array(0))
        .digest();
      this.#release();
      return digest;
    }
    if (this.#filled > 0 || !this.#posted) this.#post();
    if (this.#failure) throw this.#failure;
    const slot = this.#slot!;
    const digest = new Promise<Buffer>((resolve, reject) => (this.#digest = { resolve, reject }));
    slot.post({ op: 'digest', id: this.id, algorithm: this.#algorithm });
    return digest;
  }

  dispose(): void {
    if (this.#done && this.#digest === undefined) return;
    this.#done = true;
    if (this.#posted && this.#slot && !this.#slot.dead) this.#slot.post({ op: 'drop', id: this.id });
    this.#digest?.reject(new SwitchyardError('canceled', 'the hash was given up'));
    this.#digest = undefined;
    this.#release();
  }

  /** @internal A message of the worker about this hash. */
  receive(message: FromWorker): void {
    if (message.op === 'hashed') {
      this.#inFlight.shift();
      if (this.#inFlight.length < IN_FLIGHT) this.#wakeUp();
    } else if (message.op === 'digest') {
      const digest = this.#digest;
      this.#digest = undefined;
      this.#release();
      digest?.resolve(Buffer.from(message.digest.buffer, message.digest.byteOffset, message.digest.byteLength));
    } else if (message.op === 'failed') {
      this.fail(new SwitchyardError('internal', `hashing failed: ${message.message}`));
    }
  }

  /** @internal The hash cannot go on (its worker died, or it failed there): its digest and any later use fail with `error`. */
  fail(error: SwitchyardError): void {
    if (this.#posted && this.#slot && !this.#slot.dead && this.#slot.hashes.has(this.id)) this.#slot.post({ op: 'drop', id: this.id });
    this.#failure ??= error;
    this.#done = true;
    this.#digest?.reject(this.#failure);
    this.#digest = undefined;
    this.#inFlight.length = 0;
    this.#release();
  }

  #attach(slot: Slot): Slot {
    this.#slot = slot;
    slot.hashes.set(this.id, this);
    return slot;
  }

  #post(): void {
    const slot = this.#slot ?? this.#attach(this.#pool.slotFor());
    if (slot.dead) return this.fail(slot.dead);
    this.#posted = true;
    const slab = this.#slab;
    if (slab !== undefined) {
      slot.post({ op: 'update', id: this.id, algorithm: this.#algorithm, slab: slab.index, length: this.#filled });
      this.#inFlight.push(slab);
    }
    this.#slab = undefined;
    this.#filled = 0;
  }

  #usable(): void {
    if (this.#failure) throw this.#failure;
    if (this.#done) throw new SwitchyardError('internal', 'the hash was used after its digest or dispose');
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Slabs back to the pool and the worker's table; anyone waiting to feed goes on (to find the hash done). */
  #release(): void {
    if (this.#slab && !this.#slot?.dead) this.#slot?.giveSlab(this.#slab);
    this.#slab = undefined;
    this.#filled = 0;
    this.#slot?.hashes.delete(this.id);
    this.#wakeUp();
  }
}

let shared: HashPool | undefined;

/** The process's pool (started on first use; its workers never keep the process alive). */
export function sharedHashPool(): HashPool {
  return (shared ??= new HashPool());
}

/** A running sha256 hashed off the event loop, in the process's pool. */
export function offThreadSha256(): RunningHash {
  return sharedHashPool().create('sha256');
}
