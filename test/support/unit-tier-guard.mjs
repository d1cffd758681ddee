// Preloaded into the unit tier's test processes (scripts/run-tests.mjs): a unit test starts no
// child process and reaches no server it did not start itself. One that needs MySQL, Redis,
// NATS, s3rver or a program belongs to the e2e tier: list it in test/tiers.mjs.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const refuse = (name) =>
  function refused() {
    throw new Error(`the unit tier starts no child process (child_process.${name}): move this test to the e2e tier in test/tiers.mjs`);
  };
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) childProcess[name] = refuse(name);
syncBuiltinESMExports();
process.env.SWITCHYARD_TEST_TIER = 'unit';
