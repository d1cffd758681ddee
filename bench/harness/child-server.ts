import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ChildServer {
  readonly pid: number;
  /** The match of the `ready` pattern in the child's output. */
  readonly ready: RegExpMatchArray;
  stop(): Promise<void>;
}

export interface ChildOptions {
  /** What follows `node` (or `command`): a compiled script and its arguments, or `--import tsx` and a TypeScript one. */
  readonly args: readonly string[];
  /** Another program than this Node (e.g. nginx); the profiling and BENCH_NODE_ARGS flags are then left out. */
  readonly command?: string;
  readonly env: Readonly<Record<string, string>>;
  /** Matched against everything the child has printed; resolves start-up. */
  readonly ready: RegExp;
  /** Output goes to this file, not to a pipe, so the bench process spends no CPU draining logs. */
  readonly logFile: string;
  readonly timeoutMs?: number;
}

/** Children still running: killed if the bench process exits early, so no server outlives a crashed run. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * BENCH_CPU_PROFILE_DIR=<dir>: every server of the run writes a `--cpu-prof`
 * profile there when it stops (read them with tools/cpu-profile-summary.ts);
 * NODE_OPTIONS refuses the flag.
 */
const PROFILE_ARGS = process.env.BENCH_CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR}`] : [];

/** BENCH_NODE_ARGS="<flags>": more node flags for every server, e.g. `--perf-basic-prof` to name JS frames for `perf record -a -g`. */
const EXTRA_NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

/** Starts a server as a separate process (not a tsx wrapper, so `pid` is the server itself). */
export async function startChild(options: ChildOptions): Promise<ChildServer> {
  const fd = openSync(options.logFile, 'w');
  const node = options.command === undefined;
  const child = spawn(
    options.command ?? process.execPath,
    node ? [...PROFILE_ARGS, ...EXTRA_NODE_ARGS, ...options.args] : [...options.args],
    {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', fd, fd],
    },
  );
  closeSync(fd);
  live.add(child);
  child.once('exit', () => live.delete(child));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let status: number | null | undefined;
  void exited.then((code) => (status = code));

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    const output = readFileSync(options.logFile, 'utf8');
    const ready = output.match(options.ready);
    if (ready && child.pid !== undefined) return { pid: child.pid, ready, stop: () => stopChild(child, exited) };
    if (status !== undefined)
      throw new Error(`${options.args.join(' ')} exited with ${status} before it was ready:\n${output.slice(-2000)}`);
    await sleep(50);
  }
  await stopChild(child, exited);
  throw new Error(`${options.args.join(' ')} not ready within the timeout:\n${readFileSync(options.logFile, 'utf8').slice(-2000)}`);
}

/** SIGTERM (the servers shut down gracefully), SIGKILL if that takes too long. */
async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
