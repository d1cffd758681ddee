// ava's configuration for the compiled test tree (scripts/build-test-tree.mjs): the same tests, as
// plain JavaScript in test-build/, run without a loader. `npm test` and the tier scripts use it.
import base from './ava.config.mjs';

export default {
  ...base,
  files: ['test-build/*/src/**/*.test.js', 'test-build/test/**/*.test.js'],
  extensions: { js: true },
  nodeArguments: ['--enable-source-maps', '--conditions=switchyard-source', '--openssl-legacy-provider'],
};
