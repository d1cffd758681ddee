import type { Metadata } from '@grpc/grpc-js';
import { metadataToHeaders } from './server-calls.js';

/**
 * One in-process call from start to end: the metadata it came with, the
 * headers the handler sent, and whether (and why) it was cancelled. A plain
 * object with a listener list rather than an AbortController per call, to
 * spare every call Node's AbortSignal machinery.
 * Justified by rest-get-asset (bench/hand-written-parts.md#call-life).
 */
export class CallLife {
  #responseHeader: Headers | undefined;
  /** What the handler sent before anyone read `responseHeader`: most calls' headers are never read. */
  #sentMetadata: Metadata[] = [];
  #state: 'running' | 'cancelled' | 'settled' = 'running';
  #listeners: (() => void)[] = [];
  #reason: unknown;
  /** The trailer a client-streaming handler answered with, if any (the API key's id). */
  #trailer: Metadata | undefined;
  #headerSent = false;
  /** Who waits for the handler's headers (a server stream's caller, as over the wire). */
  #headerWaiters: (() => void)[] = [];

  constructor(readonly metadata: Metadata) {}

  /** The trailer the handler answered with, as the client reads it; empty when it sent none. */
  responseTrailer(): Headers {
    return this.#trailer === undefined ? new Headers() : metadataToHeaders(this.#trailer);
  }

  /** A client-streaming handler's trailer, given with its answer. */
  sendTrailer(metadata: Metadata | undefined): void {
    this.#trailer = metadata;
  }

  /** The headers the handler sent, as the client reads them (made when first read). */
  get responseHeader(): Headers {
    if (this.#responseHeader === undefined) {
      this.#responseHeader = new Headers();
      for (const metadata of this.#sentMetadata) metadataToHeaders(metadata, this.#responseHeader);
      this.#sentMetadata = [];
    }
    return this.#responseHeader;
  }

  /** The handler's sendMetadata; `metadata` is not changed afterwards (grpc-js would have sent it). */
  sendHeader(metadata: Metadata): void {
    if (this.#responseHeader === undefined) this.#sentMetadata.push(metadata);
    else metadataToHeaders(metadata, this.#responseHeader);
    this.headerGoesOut();
  }

  /** The headers are out: sent, or implied by a first message (grpc-js sends empty ones before it). */
  headerGoesOut(): void {
    if (this.#headerSent) return;
    this.#headerSent = true;
    this.#wakeHeaderWaiters();
  }

  /**
   * Resolves once the handler has sent its headers or the call has ended,
   * as a response's headers arrive over the wire; `undefined` when that has
   * happened already (a file read's headers go out at once), sparing a turn.
   */
  headerSent(): Promise<void> | undefined {
    if (this.#headerSent || this.#state !== 'running') return undefined;
    return new Promise((resolve) => this.#headerWaiters.push(resolve));
  }

  #wakeHeaderWaiters(): void {
    const waiters = this.#headerWaiters;
    if (waiters.length === 0) return;
    this.#headerWaiters = [];
    for (const wake of waiters) wake();
  }

  get cancelled(): boolean {
    return this.#state === 'cancelled';
  }

  /** Why it was cancelled (a ConnectError), once it was. */
  get reason(): unknown {
    return this.#reason;
  }

  /** Runs `listener` once if the call is cancelled (at once if it already was). */
  onCancel(listener: () => void): void {
    if (this.#state === 'cancelled') queueMicrotask(listener);
    else if (this.#state === 'running') this.#listeners.push(listener);
  }

  /** Cancels a running call; a settled one stays as it ended. */
  cancel(reason: unknown): void {
    if (this.#state !== 'running') return;
    this.#state = 'cancelled';
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
    this.#wakeHeaderWaiters();
  }

  /** The handler is done: later aborts change nothing. */
  settle(): void {
    if (this.#state !== 'running') return;
    this.#state = 'settled';
    this.#listeners = [];
    this.#wakeHeaderWaiters();
  }
}
