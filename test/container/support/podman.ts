// podman for the container tests: whether it can run here, the image built once per file from
// this checkout (ops/container/build.sh over a base made from Debian's packages), and containers
// and volumes that are removed when the test ends. Every podman call gets test/container/
// containers.conf (runc, no default open-files limit) unless CONTAINERS_CONF names another.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ROOT } from '../../support/root.js';

const run = promisify(execFile);
const CONTAINERS_CONF = process.env['CONTAINERS_CONF'] || fileURLToPath(new URL('../containers.conf', import.meta.url));
const env = { ...process.env, CONTAINERS_CONF };

/** Why the container tests cannot run on this machine, or `undefined` when they can. */
export function podmanMissing(): string | undefined {
  const version = spawnSync('podman', ['--version'], { env, encoding: 'utf8' });
  if (version.error !== undefined || version.status !== 0) return 'podman is not installed';
  if (!process.env['CONTAINERS_CONF'] && spawnSync('sh', ['-c', 'command -v runc']).status !== 0) {
    return "runc is not installed (test/container/containers.conf makes it podman's runtime)";
  }
  if (process.env['SWITCHYARD_TEST_BASE'] === undefined && spawnSync('sh', ['-c', 'command -v debootstrap']).status !== 0) {
    return 'debootstrap is not installed (or set SWITCHYARD_TEST_BASE to a Node 20 base image)';
  }
  return undefined;
}

/** Runs `podman ARGS` and resolves with its stdout, trimmed; rejects with its stderr. */
export async function podman(args: readonly string[], options: { timeout?: number } = {}): Promise<string> {
  try {
    const { stdout } = await run('podman', [...args], { env, timeout: options.timeout ?? 120_000, maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    const failed = error as Error & { stderr?: string; code?: unknown };
    throw new Error(`podman ${args.join(' ')} failed (${String(failed.code)}): ${failed.stderr?.trim() ?? failed.message}`, {
      cause: error,
    });
  }
}

/** A command's exit status, for the commands whose failure is an answer (`healthcheck run`). */
export async function podmanStatus(args: readonly string[]): Promise<number> {
  try {
    await run('podman', [...args], { env, timeout: 60_000 });
    return 0;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'number' ? code : -1;
  }
}

export interface TestImage {
  readonly tag: string;
  readonly base: string;
  /** The image's size in bytes, as `podman image inspect` reports it. */
  readonly size: number;
  remove(): Promise<void>;
}

/**
 * The image of this checkout (already built by `npm run build`), under a tag of its own, on the
 * base SWITCHYARD_TEST_BASE names or else the one ops/container/debian-base.sh makes from
 * Debian's packages (cached by its inputs, so only the first run on a machine pays for it).
 */
export async function buildTestImage(): Promise<TestImage> {
  const base =
    process.env['SWITCHYARD_TEST_BASE'] ?? (await shell([`${ROOT}ops/container/debian-base.sh`], {}, 15 * 60_000)).split('\n').at(-1)!;
  const tag = `localhost/switchyard-test:${randomBytes(4).toString('hex')}`;
  await shell([`${ROOT}ops/container/build.sh`, tag], { BASE: base }, 10 * 60_000);
  const size = Number(await podman(['image', 'inspect', '--format', '{{.Size}}', tag]));
  const remove = async (): Promise<void> => {
    await podman(['rmi', '--force', tag]).catch(() => undefined);
    // The build stage's image (the staged app), kept by podman as build cache: 150 MB a run.
    await podman(['image', 'prune', '--force', '--filter', 'label=io.switchyard.stage=staged-app']).catch(() => undefined);
  };
  return { tag, base, size, remove };
}

async function shell(argv: readonly string[], extra: Record<string, string>, timeout: number): Promise<string> {
  try {
    const { stdout } = await run(argv[0]!, argv.slice(1), { cwd: ROOT, env: { ...env, ...extra }, timeout, maxBuffer: 64 * 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    const failed = error as Error & { stderr?: string };
    throw new Error(`${argv.join(' ')} failed: ${failed.stderr?.trim().split('\n').slice(-30).join('\n') ?? failed.message}`, {
      cause: error,
    });
  }
}

/** Names that say which run made them, so nothing of another run is touched. */
export function uniqueName(what: string): string {
  return `switchyard-test-${what}-${randomBytes(4).toString('hex')}`;
}

/** Where a test registers cleanup, as ava's `t` does. */
interface Teardown {
  teardown(fn: () => Promise<void>): void;
}

/** A named volume, removed (after the containers using it) when the test ends. */
export async function createVolume(t: Teardown): Promise<string> {
  const name = uniqueName('data');
  await podman(['volume', 'create', name]);
  t.teardown(async () => void (await podman(['volume', 'rm', '--force', name]).catch(() => undefined)));
  return name;
}

export interface Container {
  readonly name: string;
  logs(): Promise<string>;
  /**
   * Follows the container's output as it comes (`podman logs --follow`), so a test sees a line
   * the moment it is written rather than one podman call per look; `until` resolves once the
   * output so far matches.
   */
  follow(): { until(pattern: RegExp): Promise<void> };
  /** `podman inspect --format FORMAT` of the container. */
  inspect(format: string): Promise<string>;
}

/**
 * `podman run --detach --name … ARGS`, removed with its anonymous volumes when the test ends
 * (registered before it starts, so a container that failed to start goes too).
 */
export async function runContainer(t: Teardown, args: readonly string[]): Promise<Container> {
  const name = uniqueName('run');
  t.teardown(async () => void (await podman(['rm', '--force', '--volumes', '--time', '0', name]).catch(() => undefined)));
  await podman(['run', '--detach', '--name', name, ...args]);
  return {
    name,
    logs: async () => podman(['logs', name]).catch((error: unknown) => String(error)),
    follow: () => followLogs(t, name),
    inspect: async (format) => podman(['inspect', '--format', format, name]),
  };
}

function followLogs(t: Teardown, name: string): { until(pattern: RegExp): Promise<void> } {
  const child = spawn('podman', ['logs', '--follow', name], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(async () => void child.kill());
  let output = '';
  let waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
    waiters = waiters.filter((waiter) => !(waiter.pattern.test(output) && (waiter.resolve(), true)));
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return {
    until: (pattern) => (pattern.test(output) ? Promise.resolve() : new Promise((resolve) => waiters.push({ pattern, resolve }))),
  };
}
