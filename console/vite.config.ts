import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const COMPRESSIBLE = /\.(js|css|html|svg|json)$/;

/**
 * Writes `.br` and `.gz` beside every text file of the build, so the gateway
 * (@fastify/static `preCompressed`) sends the smallest its client accepts
 * without compressing per request.
 */
function precompress(): Plugin {
  return {
    name: 'switchyard-precompress',
    apply: 'build',
    async closeBundle() {
      const dist = join(import.meta.dirname, 'dist');
      for (const entry of await readdir(dist, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !COMPRESSIBLE.test(entry.name)) continue;
        const path = join(entry.parentPath, entry.name);
        const bytes = await readFile(path);
        await writeFile(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        await writeFile(`${path}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

// Served by the gateway under /console/: every asset url is relative to that base, names are hashed (cached immutably).
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline scripts or styles: the console's CSP allows only 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
