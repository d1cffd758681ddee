#!/usr/bin/env node
// Lays out what the image runs, from a checkout that `npm ci` (or `npm run build`) has built:
//
//   node ops/container/stage-app.mjs OUT
//
// OUT gets the compiled packages the `switchyard` CLI needs (each one's package.json and dist,
// no sources), the production dependencies `npm ls --omit=dev` names for it, with their compiled
// native addons but without the sources and objects they were compiled from, the workspace links
// between them, and the image's health check. The Containerfile's build stage runs it after
// `npm ci`; ops/container/build.sh runs it on the host, so a checkout already built is not built
// again inside the image. Nothing is installed or fetched; the checkout is only read.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const out = process.argv[2];
if (out === undefined) {
  console.error('usage: node ops/container/stage-app.mjs OUT');
  process.exit(2);
}
const app = resolve(out);
if (!existsSync(join(root, 'cli/dist/bin.js'))) {
  console.error('stage-app: cli/dist/bin.js is missing: run `npm ci` or `npm run build` first');
  process.exit(1);
}

/** Package folders (relative to the root) of the CLI and its production dependencies. */
const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable', '--workspace', 'switchyard'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
})
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((path) => relative(root, path))
  .filter((path) => path !== '');

/** Files no running process reads. */
const SKIPPED_FILE = /(\.d\.[cm]?ts|\.d\.ts\.map|\.tsbuildinfo|\.md|\.markdown)$/i;
const SKIPPED_DEPENDENCY_FILE = /\.(map|ts|mts|cts)$/;

rmSync(app, { recursive: true, force: true });
mkdirSync(join(app, 'node_modules'), { recursive: true });

const workspaces = new Map(); // link path in node_modules -> workspace folder
for (const path of listed) {
  const real = relative(root, realpathSync(join(root, path)));
  if (!real.startsWith(`node_modules${sep}`)) {
    workspaces.set(path, real);
    continue;
  }
  // Each package without its nested node_modules: those are listed (and copied) on their own.
  cpSync(join(root, path), join(app, path), {
    recursive: true,
    filter: (source) => {
      const rel = relative(join(root, path), source);
      if (rel.split(sep).includes('node_modules')) return false;
      return !SKIPPED_FILE.test(source) && !SKIPPED_DEPENDENCY_FILE.test(source);
    },
  });
}

for (const [link, folder] of workspaces) {
  const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'));
  mkdirSync(join(app, folder), { recursive: true });
  writeFileSync(join(app, folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // What the package publishes, less its TypeScript sources: the exports' default condition is dist.
  for (const entry of manifest.files ?? ['dist']) {
    if (entry.startsWith('!') || entry === 'src' || !existsSync(join(root, folder, entry))) continue;
    cpSync(join(root, folder, entry), join(app, folder, entry), {
      recursive: true,
      filter: (source) => !SKIPPED_FILE.test(source) && !/\.test\.js(\.map)?$/.test(source),
    });
  }
  mkdirSync(dirname(join(app, link)), { recursive: true });
  symlinkSync(relative(dirname(join(app, link)), join(app, folder)), join(app, link));
}

// better-sqlite3 loads build/Release/better_sqlite3.node; the SQLite sources and the compiler's
// objects beside it are 25 MB the image never reads.
const sqlite = join(app, 'node_modules/better-sqlite3');
if (existsSync(sqlite)) {
  for (const leftover of ['deps', 'src', 'binding.gyp']) rmSync(join(sqlite, leftover), { recursive: true, force: true });
  const release = join(sqlite, 'build/Release');
  const addon = join(release, 'better_sqlite3.node');
  const kept = readFileSync(addon);
  rmSync(join(sqlite, 'build'), { recursive: true, force: true });
  mkdirSync(release, { recursive: true });
  writeFileSync(addon, kept);
}

// `switchyard` on the image's PATH is a link to it.
chmodSync(join(app, 'cli/dist/bin.js'), 0o755);
cpSync(join(root, 'ops/container/healthcheck.mjs'), join(app, 'healthcheck.mjs'));
writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'switchyard-image', private: true, type: 'module' }, null, 2)}\n`);
console.log(`stage-app: ${workspaces.size} packages and ${listed.length - workspaces.size - 1} dependencies in ${basename(app)}`);
