// ava's configuration (a file rather than package.json, for sortTestFiles).
import { relative, sep } from 'node:path';
import { tierOf } from './test/tiers.mjs';

const ROOT = new URL('.', import.meta.url).pathname;
const heavyFirst = (file) => (tierOf(relative(ROOT, file).split(sep).join('/')) === 'heavy' ? 0 : 1);

export default {
  files: ['*/src/**/*.test.ts', 'test/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx', '--conditions=switchyard-source', '--openssl-legacy-provider'],
  workerThreads: false,
  timeout: '2m',
  environmentVariables: { METRICS_PORT: '0' },
  // The heavy files (test/tiers.mjs) start first: the longest work first keeps a shared pool short.
  sortTestFiles: (a, b) => heavyFirst(a) - heavyFirst(b) || a.localeCompare(b, 'en', { numeric: true }),
};
