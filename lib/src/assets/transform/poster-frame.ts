import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { systemTime, type Timers } from '../../clock.js';
import { SwitchyardError } from '../../errors.js';

/** Where ffmpeg is and how much one poster frame may take. */
export interface PosterFrameConfig {
  /** The ffmpeg executable; absent: poster frames are `unimplemented`. */
  readonly ffmpegPath?: string | undefined;
  /** Milliseconds one ffmpeg run may take; then it is killed. */
  readonly timeoutMs: number;
  /** Address space of one ffmpeg run (`ulimit -v`), bytes. */
  readonly memoryBytes: number;
}

export const DEFAULT_POSTER_FRAMES: Omit<PosterFrameConfig, 'ffmpegPath'> = Object.freeze({
  timeoutMs: 20_000,
  memoryBytes: 1024 * 1024 * 1024,
});

/** What extractFrame uses of its ffmpeg process: node:child_process's, or a test's stand-in. */
export type FrameProcess = Pick<ChildProcessByStdio<null, Readable, Readable>, 'stdout' | 'stderr' | 'kill' | 'once'>;

/** How extractFrame runs ffmpeg: the timers of its deadline, and what starts the process (tests give stand-ins for both). */
export interface FrameRunner {
  readonly timers?: Timers | undefined;
  readonly spawn?: ((command: string, args: readonly string[]) => FrameProcess) | undefined;
}

/** A frame as ffmpeg writes it (a high-quality JPEG) is far smaller than this. */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** Exit status of `sh` when the command to exec is missing or not executable. */
const NOT_FOUND = new Set([126, 127]);

export function framesUnavailable(): SwitchyardError {
  return new SwitchyardError(
    'unimplemented',
    'poster frames need ffmpeg, which this server does not have (install it, or set FFMPEG_PATH); the file itself is served without ?frame',
    [{ field: 'frame', reason: 'ffmpeg is not installed' }],
  );
}

/**
 * The frame of the video at `inputPath` shown at `atMs`, as a JPEG, from
 * ffmpeg in a process of its own: one decoding thread, its address space
 * capped by `ulimit -v`, killed at the deadline. Seeking before the input
 * lands on the exact frame (ffmpeg decodes from the keyframe before it).
 * A time past the end gives no frame: `invalid_argument`. A file ffmpeg
 * cannot decode is `invalid_argument` too; ffmpeg missing is `unimplemented`.
 * The deadline runs on the runner's timers (the system's by default).
 */
export async function extractFrame(config: PosterFrameConfig, inputPath: string, atMs: number, runner: FrameRunner = {}): Promise<Buffer> {
  const timers = runner.timers ?? systemTime;
  const start = runner.spawn ?? spawnFfmpeg;
  if (config.ffmpegPath === undefined) throw framesUnavailable();
  const args = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-threads', '1', '-ss', (atMs / 1000).toFixed(3), '-i', inputPath];
  args.push('-map', '0:v:0', '-frames:v', '1', '-an', '-sn', '-dn', '-f', 'image2pipe', '-c:v', 'mjpeg', '-q:v', '2', 'pipe:1');
  const kib = Math.max(1, Math.floor(config.memoryBytes / 1024));
  // sh sets the limit for itself and then becomes ffmpeg, so the limit is ffmpeg's alone.
  const child = start('/bin/sh', ['-c', 'ulimit -v "$1" || exit 125; shift; exec "$@"', 'sh', String(kib), config.ffmpegPath, ...args]);
  const out: Buffer[] = [];
  let outBytes = 0;
  let errText = '';
  let overflow = false;
  child.stdout.on('data', (chunk: Buffer) => {
    outBytes += chunk.length;
    if (outBytes > MAX_FRAME_BYTES) {
      overflow = true;
      child.kill('SIGKILL');
    } else out.push(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => void (errText = (errText + chunk.toString()).slice(-2000)));
  let timedOut = false;
  const timer = timers.setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, config.timeoutMs);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve(status));
  }).finally(() => timers.clearTimeout(timer));
  if (timedOut)
    throw new SwitchyardError('unavailable', `the poster frame took longer than ${config.timeoutMs} ms; try again later`, [], {
      retryAfterMs: 5_000,
    });
  if (code !== null && NOT_FOUND.has(code)) throw framesUnavailable();
  if (overflow || code !== 0) throw undecodable(errText);
  if (outBytes === 0)
    throw new SwitchyardError('invalid_argument', `the video has no frame at ${atMs} ms`, [
      { field: 'frame', reason: 'past the end of the video' },
    ]);
  return Buffer.concat(out, outBytes);
}

function spawnFfmpeg(command: string, args: readonly string[]): FrameProcess {
  return spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
}

function undecodable(stderr: string): SwitchyardError {
  return new SwitchyardError(
    'invalid_argument',
    'the video could not be decoded for a poster frame',
    [{ field: 'file', reason: 'not a decodable video' }],
    { cause: new Error(stderr.trim() || 'ffmpeg failed') },
  );
}
