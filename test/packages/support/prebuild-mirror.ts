// better-sqlite3 installs through prebuild-install, which downloads a prebuilt binary from
// GitHub and compiles SQLite from source (node-gyp, minutes of both CPUs) when it cannot. This
// machine cannot reach GitHub, so each consumer install compiled it again, and under a loaded
// CI run the shared install outlived its tests' 5-minute timeouts. Teams behind a firewall point
// prebuild-install at a mirror (`npm_config_better_sqlite3_binary_host`); this is one on
// loopback, serving the binary the repository's own install built, of the same version.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../support/cli.js';

const PACKAGE = join(ROOT, 'node_modules/better-sqlite3');

export interface PrebuildMirror {
  /** The environment that sends prebuild-install here. */
  readonly env: NodeJS.ProcessEnv;
  /** How many times the binary was fetched. */
  readonly served: () => number;
  readonly close: () => Promise<void>;
}

export async function startPrebuildMirror(): Promise<PrebuildMirror> {
  const { version } = JSON.parse(await readFile(join(PACKAGE, 'package.json'), 'utf8')) as { version: string };
  const folder = await mkdtemp(join(tmpdir(), 'switchyard-prebuilds-'));
  const archive = join(folder, 'better-sqlite3.tar.gz');
  await promisify(execFile)('tar', ['-czf', archive, '-C', PACKAGE, 'build/Release/better_sqlite3.node']);
  const bytes = await readFile(archive);
  // prebuild-install asks for <host>/v<version>/better-sqlite3-v<version>-node-v<abi>-<platform><libc>-<arch>.tar.gz.
  const wanted = `/v${version}/better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  let served = 0;
  const server = createServer((request, response) => {
    if (request.url !== wanted) return void response.writeHead(404).end();
    served += 1;
    response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': bytes.length }).end(bytes);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: { npm_config_better_sqlite3_binary_host: host },
    served: () => served,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
