// Where the built console is: the gateway serves this folder at /console/.
import { fileURLToPath } from 'node:url';

export const consoleRoot = fileURLToPath(new URL('./dist/', import.meta.url));
