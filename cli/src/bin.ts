#!/usr/bin/env node
import { main } from './main.js';

// The one place the environment is read; everything below gets it passed down.
await main(process.argv.slice(2), process.env);
