// The `switchyard` CLI, callable from code too: `await main(['start'], process.env)`.
export { main, COMMANDS, USAGE } from './main.js';
