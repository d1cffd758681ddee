import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { cliArgs, ROOT } from '../../support/cli.js';

export { ROOT };

/** The variables of docs/configuration.md, blanked so the developer's own environment cannot leak into a run. */
const OWN_VARIABLES = [
  'HOST',
  'PORT',
  'GRPC_PORT',
  'DATA_DIR',
  'CDN_URL',
  'DATABASE_URL',
  'BLOB_STORE',
  'AUTH_SECRET',
  'AUTH_JWKS_URL',
  'MAX_UPLOAD_BYTES',
  'SERVICE_URL',
  'CORS_ORIGINS',
  'JSON_BODY_LIMIT_BYTES',
  'LOG_LEVEL',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'BODY_IDLE_TIMEOUT_MS',
  'MAX_CONNECTIONS',
  'MAX_INFLIGHT_UPLOADS',
  'UPLOAD_IDLE_TIMEOUT_MS',
  'RATE_LIMIT_PER_SECOND',
  'RATE_LIMIT_BURST',
  'METRICS_PORT',
  'UPLOAD_EXPIRY_SECONDS',
  'TRUST_PROXY',
  'EVENTS_URL',
  'RATE_LIMIT_STORE',
  'RATE_LIMIT_REDIS_URL',
  'URL_SIGNING_KEYS',
];

export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of OWN_VARIABLES) env[name] = '';
  // Processes started side by side must not all take METRICS_PORT's default.
  return { ...env, METRICS_PORT: '0', ...extra };
}

/** A child process running the compiled `switchyard <command...>` (see support/cli.ts), with its output collected. */
export class Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;
  #output = '';
  #waiters: { pattern: RegExp; resolve: (match: RegExpExecArray) => void }[] = [];

  constructor(command: readonly string[], env: NodeJS.ProcessEnv) {
    this.process = spawn(process.execPath, cliArgs(...command), { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = once(this.process, 'exit').then(([code]) => code as number | null);
    const collect = (chunk: Buffer): void => {
      this.#output += chunk.toString();
      this.#waiters = this.#waiters.filter((waiter) => {
        const match = waiter.pattern.exec(this.#output);
        if (match) waiter.resolve(match);
        return !match;
      });
    };
    this.process.stdout.on('data', collect);
    this.process.stderr.on('data', collect);
  }

  get output(): string {
    return this.#output;
  }

  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    const match = pattern.exec(this.#output);
    if (match) return Promise.resolve(match);
    return new Promise((resolve, reject) => {
      this.#waiters.push({ pattern, resolve });
      void this.exited.then((code) => reject(new Error(`exited with ${code} before printing ${pattern}:\n${this.#output}`)));
    });
  }

  /** SIGTERM and the exit code. */
  async stop(): Promise<number | null> {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill('SIGTERM');
    return this.exited;
  }
}
