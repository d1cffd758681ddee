import test from 'ava';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { createClock } from '@sinonjs/fake-timers';
import { isSwitchyardError } from '../../errors.js';
import { eventually } from '../../testing/eventually.js';
import { timeSourceOf } from '../../testing/fake-time.js';
import { DEFAULT_POSTER_FRAMES, extractFrame, type FrameProcess } from './poster-frame.js';

// ffmpeg's deadline on fake time, with a stand-in for the process (poster-frame.test.ts runs the real
// ffmpeg, in the e2e tier).

/** An ffmpeg run as extractFrame sees it: the test writes its output and says when it ends. */
class StandIn extends EventEmitter {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly signals: (NodeJS.Signals | number | undefined)[] = [];
  kill(signal?: NodeJS.Signals | number): boolean {
    this.signals.push(signal);
    // A killed process closes with no exit code.
    setImmediate(() => this.emit('close', null));
    return true;
  }
  exit(code: number): void {
    this.stdout.end();
    this.stderr.end();
    // As a process's: 'close' once its output has been read.
    setImmediate(() => this.emit('close', code));
  }
}

const WITHIN = { timeout: 10_000, interval: 0 } as const;
const CONFIG = { ...DEFAULT_POSTER_FRAMES, ffmpegPath: '/usr/bin/ffmpeg' };

function run(fake: ReturnType<typeof createClock>) {
  const process = new StandIn();
  const result: { frame?: Buffer; error?: unknown } = {};
  void extractFrame(CONFIG, '/videos/v.mp4', 1_000, {
    timers: timeSourceOf(fake),
    spawn: () => process as unknown as FrameProcess,
  }).then(
    (frame) => (result.frame = frame),
    (error: unknown) => (result.error = error),
  );
  return { process, result };
}

test('ffmpeg still running at its timeoutMs is killed then, not a ms sooner: unavailable with a retry hint', async (t) => {
  const fake = createClock(0);
  const { process, result } = run(fake);
  await fake.tickAsync(CONFIG.timeoutMs - 1);
  t.deepEqual(process.signals, [], `running at ${CONFIG.timeoutMs - 1} ms`);
  await fake.tickAsync(1);
  t.deepEqual(process.signals, ['SIGKILL']);
  await eventually(() => result.error, { ...WITHIN, message: 'the failure' });
  t.true(isSwitchyardError(result.error) && result.error.code === 'unavailable', String(result.error));
  t.true(isSwitchyardError(result.error) && (result.error.retryAfterMs ?? 0) > 0);
});

test('a frame written before the deadline is the answer, and its timer is cleared', async (t) => {
  const fake = createClock(0);
  const { process, result } = run(fake);
  await fake.tickAsync(CONFIG.timeoutMs - 1);
  process.stdout.write(Buffer.from('jpeg'));
  process.exit(0);
  await eventually(() => result.frame, { ...WITHIN, message: 'the frame' });
  t.deepEqual(result.frame, Buffer.from('jpeg'));
  t.is(fake.countTimers(), 0);
  t.deepEqual(process.signals, []);
});
