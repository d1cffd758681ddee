import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root (with a trailing /), where child processes run and `npm pack` packs: the
 * checkout itself, also when a test runs from the compiled test tree (test-build/, whose
 * package.json links to the checkout's).
 */
export const ROOT = `${dirname(realpathSync(fileURLToPath(new URL('../../package.json', import.meta.url))))}/`;
