#!/usr/bin/env node
// The compiled test tree: the repository's TypeScript (each package's src/ and test/) transpiled by
// esbuild, one .js beside where each .ts would be, into test-build/, with everything else linked in
// at the same relative place (fixtures, docs, dist, package manifests), so that `import.meta.url`
// paths hold. Ava then runs the tests on plain Node: no loader hooks resolving and transforming
// every module of every test process, which is most of a small test file's cost on tsx.
// The figures that justify it are in bench/hand-written-parts.md#compiled-test-tree.
//
//   node scripts/build-test-tree.mjs     builds or refreshes test-build/ (only changed files)
//
// The packages resolve to their own sources here as they do under tsx: test-build/node_modules/
// @switchyard/* link to test-build's package folders, whose manifests point the
// `switchyard-source` condition at the transpiled .js.
import { build } from 'esbuild';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
export const TEST_BUILD = join(ROOT, 'test-build');
const PACKAGES = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces;
/** Folders whose TypeScript is transpiled (the tests import the scripts' and the bench's); everything else is linked. */
const COMPILED = [...PACKAGES.map((dir) => `${dir}/src`), 'test', 'bench', 'scripts'];
/** Never linked or walked. */
const SKIPPED = new Set(['.git', 'node_modules', 'test-build']);

/** `path` in test-build links to the same path in the repository (an absolute link: the tree may move). */
function link(path) {
  const target = join(ROOT, path);
  const at = join(TEST_BUILD, path);
  if (existsSync(at) || isLink(at)) return;
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(target, at);
}

function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Whether `dir` holds TypeScript to transpile, at any depth. */
function holdsTypeScript(dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).some((entry) =>
    entry.isDirectory() ? !SKIPPED.has(entry.name) && holdsTypeScript(`${dir}/${entry.name}`) : /\.tsx?$/.test(entry.name),
  );
}

/**
 * Walks a compiled folder: its TypeScript files to transpile; every other file linked, and a folder
 * without TypeScript linked whole (a test listing its fixtures sees files, not links).
 */
function walkCompiled(dir, sources) {
  // A folder linked whole by an earlier tree (before it held TypeScript, or before it was compiled)
  // is unlinked first: esbuild would otherwise write through the link into the repository.
  if (isLink(join(TEST_BUILD, dir))) rmSync(join(TEST_BUILD, dir));
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (holdsTypeScript(path)) walkCompiled(path, sources);
      else link(path);
    } else {
      // A .ts is linked too, beside its .js: a test that hands its own source (or a fixture's) to a
      // child process on tsx names the .ts.
      if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) sources.push(path);
      link(path);
    }
  }
}

/** Links what lies outside the compiled folders: `dir`'s entries, down to the compiled ones. */
function linkAround(dir) {
  for (const entry of readdirSync(join(ROOT, dir || '.'), { withFileTypes: true })) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    // A package's own node_modules is linked; the root's is not: test-build/node_modules is ours.
    if (SKIPPED.has(entry.name) && !(entry.name === 'node_modules' && dir)) continue;
    if (entry.name === 'package.json' && PACKAGES.includes(dir)) continue;
    if (COMPILED.includes(path)) continue;
    if (entry.isDirectory() && COMPILED.some((compiled) => compiled.startsWith(`${path}/`))) linkAround(path);
    else link(path);
  }
}

/**
 * test-build/node_modules: the repository's own, entry by entry (a test that names
 * `node_modules/.bin/buf` under its root finds it), but for the workspace packages, which
 * writeManifest links to their transpiled selves.
 */
function linkDependencies() {
  const ours = new Set(PACKAGES.map((dir) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')).name.split('/')[0]));
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (!ours.has(entry)) link(`node_modules/${entry}`);
  }
}

/** A package's manifest with its `switchyard-source` targets on the transpiled .js. */
function writeManifest(dir) {
  const manifest = readFileSync(join(ROOT, dir, 'package.json'), 'utf8');
  const rewritten = manifest.replace(/("switchyard-source":\s*"[^"]+)\.tsx?"/g, '$1.js"');
  const at = join(TEST_BUILD, dir, 'package.json');
  mkdirSync(dirname(at), { recursive: true });
  if (!existsSync(at) || readFileSync(at, 'utf8') !== rewritten) writeFileSync(at, rewritten);
  const { name } = JSON.parse(manifest);
  const self = join(TEST_BUILD, 'node_modules', name);
  if (!isLink(self)) {
    mkdirSync(dirname(self), { recursive: true });
    symlinkSync(relative(dirname(self), join(TEST_BUILD, dir)), self);
  }
}

/** The sources whose output is missing or older than they are. */
function stale(sources) {
  return sources.filter((source) => {
    const output = join(TEST_BUILD, source.replace(/\.tsx?$/, '.js'));
    return !existsSync(output) || statSync(output).mtimeMs < statSync(join(ROOT, source)).mtimeMs;
  });
}

export async function buildTestTree() {
  if (existsSync(TEST_BUILD) && !existsSync(join(TEST_BUILD, 'node_modules'))) rmSync(TEST_BUILD, { recursive: true, force: true });
  mkdirSync(TEST_BUILD, { recursive: true });
  linkAround('');
  linkDependencies();
  const sources = [];
  for (const dir of COMPILED) if (existsSync(join(ROOT, dir))) walkCompiled(dir, sources);
  for (const dir of PACKAGES) writeManifest(dir);
  const changed = stale(sources);
  if (changed.length > 0)
    await build({
      entryPoints: changed.map((source) => join(ROOT, source)),
      outbase: ROOT,
      outdir: TEST_BUILD,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      logLevel: 'error',
    });
  return { sources: sources.length, transpiled: changed.length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now();
  const { sources, transpiled } = await buildTestTree();
  console.log(
    `test-build: ${transpiled} of ${sources} TypeScript files transpiled in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
