import test from 'ava';
import { EventEmitter } from 'node:events';
import type { ServerReadableStream } from '@grpc/grpc-js';
import { createClock } from '@sinonjs/fake-timers';
import { isSwitchyardError } from '@switchyard/core';
import { eventually, timeSourceOf } from '@switchyard/core/testing';
import { endWasCancelled, FALLBACK_GRACE_MS, IN_PROCESS_CALL } from './end-of-stream.js';
import { readUploadStream, type UploadMessage } from './upload-stream.js';

// The stream's idle timeout on fake time, over a client stream the test writes message by message.

interface Metadata {
  readonly label: string;
}

/** A client-streamed call as the handlers see it: its messages arrive when the test sends them. */
class FakeCall extends EventEmitter {
  cancelled = false;
  readonly [IN_PROCESS_CALL] = true;
  /** Messages the client sent that the handler has not asked for yet. */
  readonly #sent: IteratorResult<UploadMessage<Metadata>>[] = [];
  #waiting: ((result: IteratorResult<UploadMessage<Metadata>>) => void) | undefined;
  /** How many messages the handler has asked for. */
  asked = 0;

  send(message: UploadMessage<Metadata>): void {
    this.#deliver({ done: false, value: message });
  }

  end(): void {
    this.#deliver({ done: true, value: undefined });
  }

  #deliver(result: IteratorResult<UploadMessage<Metadata>>): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) waiting(result);
    else this.#sent.push(result);
  }

  [Symbol.asyncIterator](): AsyncIterator<UploadMessage<Metadata>> {
    return {
      next: () => {
        this.asked += 1;
        const sent = this.#sent.shift();
        return sent ? Promise.resolve(sent) : new Promise((resolve) => (this.#waiting = resolve));
      },
      return: () => Promise.resolve({ done: true, value: undefined }),
    };
  }

  asCall(): ServerReadableStream<UploadMessage<Metadata>, unknown> {
    return this as unknown as ServerReadableStream<UploadMessage<Metadata>, unknown>;
  }
}

const IDLE_MS = 30_000;
const WITHIN = { timeout: 10_000, interval: 0 } as const;

function stalled(error: unknown): boolean {
  return isSwitchyardError(error) && error.code === 'deadline_exceeded';
}

/** Reads the body as a consumer would, recording what came and how it ended. */
function consume(body: NodeJS.ReadableStream) {
  const seen: { bytes: number; failure?: unknown; ended: boolean } = { bytes: 0, ended: false };
  void (async () => {
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) seen.bytes += chunk.length;
      seen.ended = true;
    } catch (error) {
      seen.failure = error;
    }
  })();
  return seen;
}

test('a stream whose first message does not come fails deadline_exceeded at the idle timeout, not a ms sooner', async (t) => {
  const fake = createClock(0);
  const call = new FakeCall();
  let failure: unknown;
  void readUploadStream(call.asCall(), { idleTimeoutMs: IDLE_MS, timers: timeSourceOf(fake) }).catch((error: unknown) => (failure = error));
  await fake.tickAsync(IDLE_MS - 1);
  t.is(failure, undefined, `waiting at ${IDLE_MS - 1} ms`);
  await fake.tickAsync(1);
  t.true(stalled(failure), String(failure));
});

test('a client that stops mid-upload fails the body at the idle timeout after its last message, not a ms sooner', async (t) => {
  const fake = createClock(0);
  const call = new FakeCall();
  call.send({ metadata: { label: 'x' } });
  const upload = await readUploadStream(call.asCall(), { idleTimeoutMs: IDLE_MS, timers: timeSourceOf(fake) });
  const seen = consume(upload.body);
  await fake.tickAsync(10_000);
  call.send({ chunk: Buffer.alloc(10) });
  await eventually(() => seen.bytes === 10 && call.asked === 3, { ...WITHIN, message: 'the chunk read and the next message asked for' });
  await fake.tickAsync(IDLE_MS - 1);
  t.is(seen.failure, undefined, `alive at ${10_000 + IDLE_MS - 1} ms`);
  await fake.tickAsync(1);
  await eventually(() => seen.failure !== undefined, { ...WITHIN, message: 'the body failed' });
  t.true(stalled(seen.failure), String(seen.failure));
  t.true(stalled(upload.bodyFailure()), 'the failure explains the upload');
});

test("time the consumer spends is not the client's: with the body's buffer full no message is asked for, and the clock starts when one is", async (t) => {
  const fake = createClock(0);
  const call = new FakeCall();
  call.send({ metadata: { label: 'x' } });
  const upload = await readUploadStream(call.asCall(), { idleTimeoutMs: IDLE_MS, timers: timeSourceOf(fake) });
  // One chunk over the body's buffer: it is taken, and then no more is asked for until the consumer reads.
  const size = upload.body.readableHighWaterMark * 2;
  call.send({ chunk: Buffer.alloc(size) });
  upload.body.resume();
  upload.body.pause();
  await eventually(() => upload.body.readableLength >= size, { ...WITHIN, message: "the chunk in the body's buffer" });
  const asked = call.asked;
  await fake.tickAsync(5 * IDLE_MS);
  t.is(upload.bodyFailure(), undefined, 'no timeout while the consumer is busy');
  t.is(call.asked, asked, 'no message asked for');
  const seen = consume(upload.body);
  await eventually(() => seen.bytes === size && call.asked === asked + 1, { ...WITHIN, message: 'the next message asked for' });
  await fake.tickAsync(IDLE_MS - 1);
  t.is(seen.failure, undefined);
  await fake.tickAsync(1);
  await eventually(() => seen.failure !== undefined, { ...WITHIN, message: 'the body failed' });
  t.true(stalled(seen.failure));
});

test('every message starts the idle time again, and a stream that ends is whole; an idle timeout of 0 starts no timer', async (t) => {
  const fake = createClock(0);
  const call = new FakeCall();
  call.send({ metadata: { label: 'x' } });
  const upload = await readUploadStream(call.asCall(), { idleTimeoutMs: IDLE_MS, timers: timeSourceOf(fake) });
  const seen = consume(upload.body);
  for (let i = 1; i <= 3; i++) {
    await fake.tickAsync(IDLE_MS - 1);
    call.send({ chunk: Buffer.alloc(1) });
    await eventually(() => seen.bytes === i, { ...WITHIN, message: `chunk ${i} read` });
  }
  call.send({ trailingLabel: 'late' });
  call.end();
  await eventually(() => seen.ended, { ...WITHIN, message: 'the body ended' });
  t.is(seen.failure, undefined);
  t.is(upload.trailing('label'), 'late');
  t.is(fake.countTimers(), 0, 'no timer left behind');

  const patient = new FakeCall();
  const unbounded = readUploadStream(patient.asCall(), { idleTimeoutMs: 0, timers: timeSourceOf(fake) });
  await fake.tickAsync(24 * 60 * 60_000);
  t.is(fake.countTimers(), 0, 'none started');
  patient.send({ metadata: { label: 'late' } });
  t.is((await unbounded).metadata.label, 'late');
});

test("an end whose call cannot be inspected waits the fallback grace for a client's cancel, on the timers given", async (t) => {
  const fake = createClock(0);
  // Neither in-process nor a grpc-js call with a stream to read: only the grace period can tell.
  const call = { cancelled: false };
  let decided: boolean | undefined;
  void endWasCancelled(call, timeSourceOf(fake)).then((cancelled) => (decided = cancelled));
  await fake.tickAsync(FALLBACK_GRACE_MS - 1);
  t.is(decided, undefined, `undecided at ${FALLBACK_GRACE_MS - 1} ms`);
  call.cancelled = true;
  await fake.tickAsync(1);
  t.true(decided, 'a cancel that arrived within the grace is seen');
  t.false(await endWasCancelled({ [IN_PROCESS_CALL]: true, cancelled: false }, timeSourceOf(fake)), 'an in-process end is known at once');
});
