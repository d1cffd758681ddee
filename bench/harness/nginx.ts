import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './child-server.js';

const TEMPLATE = new URL('../baselines/nginx.conf', import.meta.url).pathname;
const CANDIDATES = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'];

function findNginx(): string | undefined {
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  try {
    return execFileSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The nginx binary; when there is none, installs Debian's package first
 * (`apt-get install -y nginx`, after `apt-get update` if that fails). apt's
 * output goes to stderr, so stdout keeps only BENCH lines. The package's own
 * service is not started (the bench runs nginx itself, with its own config).
 */
export function ensureNginx(): string {
  const present = findNginx();
  if (present) return present;
  const apt = (args: string[]) =>
    execFileSync('apt-get', args, {
      stdio: ['ignore', 2, 2],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 15 * 60_000,
    });
  console.error('nginx is missing: apt-get install -y nginx');
  try {
    apt(['install', '-y', 'nginx']);
  } catch {
    console.error('apt-get install failed: apt-get update, then again');
    apt(['update']);
    apt(['install', '-y', 'nginx']);
  }
  const installed = findNginx();
  if (!installed) throw new Error('apt-get install nginx finished, but no nginx binary was found');
  return installed;
}

export function nginxVersion(binary: string): string {
  // `nginx -v` prints "nginx version: nginx/1.22.1" to stderr.
  const { stdout, stderr } = spawnSync(binary, ['-v'], { encoding: 'utf8' });
  return `${stdout}${stderr}`.replace(/^nginx version:\s*/, '').trim();
}

/** A port no one listens on right now (the kernel's pick; nginx takes it a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface NginxServer {
  readonly url: string;
  /** The master and its workers: the CPU of all of them is nginx's. */
  readonly pids: readonly number[];
  readonly version: string;
  stop(): Promise<void>;
}

/**
 * Starts nginx with bench/baselines/nginx.conf on a free port, serving
 * `files` (name → bytes) under /files/, from a scratch prefix directory of its
 * own (readable by the workers, which drop root's rights). `stop` ends it
 * (SIGTERM: nginx's fast shutdown) and removes the directory.
 */
export async function startNginx(files: ReadonlyMap<string, Uint8Array>): Promise<NginxServer> {
  const binary = ensureNginx();
  const prefix = await mkdtemp(join(tmpdir(), 'switchyard-bench-nginx-'));
  try {
    await chmod(prefix, 0o755);
    for (const dir of ['logs', 'tmp', 'files-root/files']) await mkdir(join(prefix, dir), { recursive: true, mode: 0o755 });
    for (const [name, bytes] of files) await writeFile(join(prefix, 'files-root/files', name), bytes, { mode: 0o644 });
    const port = await freePort();
    const config = join(prefix, 'nginx.conf');
    await writeFile(config, (await readFile(TEMPLATE, 'utf8')).replaceAll('__PORT__', String(port)));
    const child = await startChild({
      command: binary,
      args: ['-p', `${prefix}/`, '-c', config, '-e', 'stderr'],
      env: {},
      ready: /start worker process/,
      logFile: join(prefix, 'nginx.out'),
    });
    const pids = [child.pid, ...(await workersOf(child.pid))];
    return {
      url: `http://127.0.0.1:${port}`,
      pids,
      version: nginxVersion(binary),
      stop: async () => {
        await child.stop();
        await rm(prefix, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(prefix, { recursive: true, force: true });
    throw error;
  }
}

/** The master's worker processes, once they are all up (worker_processes auto: one per core). */
async function workersOf(master: number): Promise<number[]> {
  let workers: number[] = [];
  for (let tries = 0; tries < 40; tries++) {
    workers = readFileSync(`/proc/${master}/task/${master}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    if (workers.length >= expectedWorkers()) return workers;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (workers.length === 0) throw new Error(`nginx (pid ${master}) started no worker`);
  return workers;
}

function expectedWorkers(): number {
  // nginx's `auto` counts the CPUs this process may run on.
  try {
    const allowed = readFileSync('/proc/self/status', 'utf8').match(/^Cpus_allowed_list:\s*(.+)$/m)?.[1] ?? '';
    return (
      allowed.split(',').reduce((sum, part) => {
        const [a, b] = part.split('-').map(Number);
        return sum + (b === undefined ? 1 : b - a! + 1);
      }, 0) || 1
    );
  } catch {
    return 1;
  }
}
