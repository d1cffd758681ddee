#!/usr/bin/env node
import { fixHeapGrowth } from './heap-growth.js';
import { main } from './main.js';

// Process-wide V8 tuning belongs to the process, not to main(), which tests and embedders call in theirs.
fixHeapGrowth(process.execArgv);
// The one place the arguments and the environment are read; everything below gets them passed down.
process.exitCode = await main(process.argv.slice(2), process.env);
