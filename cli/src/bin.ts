#!/usr/bin/env node
import { main } from './main.js';

// The one place the arguments and the environment are read; everything below gets them passed down.
process.exitCode = await main(process.argv.slice(2), process.env);
