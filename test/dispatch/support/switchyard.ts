// A real `npm start` (the compiled CLI, `node cli/dist/bin.js start`) on free
// ports with a fresh data dir, and the REST calls the dispatch tests change
// the route table with.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RestRoute } from '@switchyard/client';
import { ROOT } from '../../support/cli.js';
import { cleanEnv } from '../../rest/support/processes.js';
import { mintToken } from '../../rest/support/tokens.js';

export type { RestRoute };

export interface RouteFields {
  readonly method?: string;
  readonly path?: string;
  readonly middleware?: readonly string[];
  readonly handler?: string;
}

export interface RunningSwitchyard {
  readonly url: string;
  /** A token for a workspace of its own: each framework's tables stay apart. */
  token(workspace: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startSwitchyard(): Promise<RunningSwitchyard> {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-dispatch-'));
  const secret = randomBytes(32).toString('base64url');
  const env = cleanEnv({
    HOST: '127.0.0.1',
    PORT: '0',
    GRPC_PORT: '0',
    DATA_DIR: dataDir,
    AUTH_SECRET: secret,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '0',
  });
  const child = spawn(process.execPath, ['cli/dist/bin.js', 'start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      const ready = /REST gateway\s+(http:\/\/\S+)/.exec(output);
      if (ready) resolve(ready[1]!);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    void exited.then(([code]) => reject(new Error(`npm start exited with ${String(code)} before it was ready:\n${output}`)));
  });
  return {
    url,
    token: (workspace) => mintToken(secret, { workspace }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The REST calls on one workspace's routes. */
export class Routes {
  constructor(
    readonly url: string,
    readonly token: string,
  ) {}

  create(fields: Required<Pick<RouteFields, 'method' | 'path' | 'handler'>> & RouteFields): Promise<RestRoute> {
    return this.#call('POST', '/v1/routing', fields, 201);
  }

  update(id: string, fields: RouteFields): Promise<RestRoute> {
    return this.#call('PATCH', `/v1/routing/${id}`, fields, 200);
  }

  async delete(id: string): Promise<void> {
    await this.#call('DELETE', `/v1/routing/${id}`, undefined, 204);
  }

  async #call(method: string, path: string, body: unknown, status: number): Promise<RestRoute> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== status) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as RestRoute;
  }
}
