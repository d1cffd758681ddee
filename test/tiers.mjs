// The suite's tiers: which test files run in which, so that `npm test` (every tier), `npm run
// test:unit` and the other tier scripts agree, and so the runner can keep the heavy files apart
// from the rest. A file belongs to the first tier whose pattern it matches; test/README.md says
// what each tier may do.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Folders of the workspace packages whose sources hold unit tests beside them. */
const PACKAGE_SOURCES = ['cli', 'client', 'console', 'dispatch', 'gateway', 'lib', 'proto', 'runtime', 'service'].map(
  (dir) => `${dir}/src`,
);

/**
 * Tests beside the sources that need what a unit test may not have: a MySQL server, Redis or
 * NATS, s3rver, or a child process (ffmpeg, tsc). They run with the end-to-end tests.
 */
const SERVICE_TESTS = [
  /^lib\/src\/assets\/transform\/poster-frame\.test\.ts$/, // ffmpeg
  /^lib\/src\/routes\/params-builder\.test\.ts$/, // tsc on a sample
  /^lib\/src\/testing\/conformance-runners\.test\.ts$/, // tsc on a sample
  /^runtime\/src\/logger\.test\.ts$/, // a child process's exit
  /^service\/src\/limits\/shared-rate-limiter\.test\.ts$/, // redis-server
  /^runtime\/src\/feed\/broker-feeds\.test\.ts$/, // redis-server, nats-server
  /^service\/src\/migrations\/migrations\.test\.ts$/, // MySQL
  /^service\/src\/stores\/(asset-name-index|kysely-asset-change-log|kysely-route-store|mysql-stores|open-storage)\.test\.ts$/, // MySQL
  /^service\/src\/stores\/s3-[a-z-]+\.test\.ts$/, // s3rver
  /^service\/src\/webhooks\/relay-mysql\.test\.ts$/, // MySQL
];

/**
 * Files that load the machine for long stretches: browsers, package installs, crash loops,
 * the scale-out deployments, slow-client floods. They start first (the longest work first keeps
 * the run short) and share the pool with the ordinary end-to-end files, which assert outcomes,
 * not elapsed time, so they do not mind the load.
 */
const HEAVY_TESTS = [
  /^test\/console\//,
  /^test\/container\//, // builds the container image and runs it under podman
  /^test\/packages\//,
  /^test\/scale\//,
  /^test\/hardening\/(crash|crash-versions-and-trash|slow-clients|concurrency|fuzz-[a-z]+)\.test\.ts$/,
  /^test\/split\/hardening-(slow-clients|fuzz-rest)\.test\.ts$/,
  /^test\/rest\/tus(-crash|-mysql-s3)?\.test\.ts$/,
  /^test\/rest\/webhook-(crash|faults)\.test\.ts$/, // SIGKILLs a service mid-delivery three times; a receiver down for 30 s
  /^test\/rest\/webhooks-instances\.test\.ts$/, // 500 changes through two instances on MySQL, to two endpoints
  /^test\/dispatch\/(dispatch|samples)\.test\.ts$/,
  /^test\/docs\/operations-split\.test\.ts$/,
  /^test\/rest\/route-watch\.test\.ts$/, // 1,000 changes through two instances on MySQL: a long file to start early
  /^test\/rest\/asset-watch-instances\.test\.ts$/, // 500 asset operations through two instances on MySQL
];

/**
 * The few files that still bound elapsed time (each listed with its reason in test/README.md):
 * they run last, one at a time, with nothing else beside them.
 */
const TIMING_TESTS = [
  /^test\/scale\/(redis|nats)\.test\.ts$/, // a rate limit's admitted calls per second, polling's read rate, a balancer's grace window
  /^test\/(hardening|split)\/(hardening-)?slow-clients\.test\.ts$/, // the server's own timeouts, each with 1.5 s of slack
  /^test\/hardening\/dependency-faults\.test\.ts$/, // fail fast when MySQL or S3 is cut: within 8 s
];

/** @typedef {'unit' | 'e2e' | 'heavy' | 'timing'} Tier */

/** @type {readonly Tier[]} the order `npm test` runs them in */
export const TIERS = Object.freeze(['unit', 'e2e', 'heavy', 'timing']);

/** @param {string} file a path relative to the repository root, with / separators @returns {Tier} */
export function tierOf(file) {
  if (TIMING_TESTS.some((pattern) => pattern.test(file))) return 'timing';
  if (HEAVY_TESTS.some((pattern) => pattern.test(file))) return 'heavy';
  if (file.startsWith('test/') || SERVICE_TESTS.some((pattern) => pattern.test(file))) return 'e2e';
  return 'unit';
}

/** Every test file of the repository, relative to `root`, sorted. */
export function testFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'fixtures') continue;
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) found.push(path);
    }
  };
  for (const dir of [...PACKAGE_SOURCES, 'test']) walk(dir);
  return found.sort();
}
