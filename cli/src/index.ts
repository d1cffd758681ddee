// The `switchyard` CLI, callable from code too: `process.exitCode = await main(['start'], process.env)`.
export { main, COMMANDS, USAGE } from './main.js';
// The merged schema of `switchyard start`, for the configuration docs (scripts/gen-config-docs.ts).
export { allInOneEnv } from './all-in-one-config.js';
