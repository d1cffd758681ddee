#!/usr/bin/env node
// Lint for package boundaries (run by `npm run lint` and so by CI):
// - a package's own code (not its tests) imports nothing outside its folder by path;
// - no file anywhere imports another package's sources by path (use its name and public exports);
// - a package's own code imports only what its package.json declares, and declares nothing it does not
//   import (or supply as another declared package's peer).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const PACKAGES = manifest.workspaces.map((dir) => ({ dir, json: JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) }));
const OTHER_ROOTS = ['test', 'bench', 'scripts'];
const BUILTINS = new Set(builtinModules);
// import/export … from 'x', import 'x', import('x'), and createRequire(…).resolve('x') (a package's files served as they are).
const SPECIFIER =
  /(?:^|\s|;)(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|\s|;)import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|\)\.resolve\(\s*['"]([^'".][^'"]*)['"]\s*\)/gm;

/** Test-only code inside a package: checked for path imports into other packages' sources only. */
const isTestFile = (path) => /\.test\.ts$|test-support\.ts$|\/fixtures\//.test(path);

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', '.tmp', 'results', 'test-build'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|tsx|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

function specifiers(text) {
  const found = [];
  for (const match of text.matchAll(SPECIFIER)) found.push(match[1] ?? match[2] ?? match[3] ?? match[4]);
  return found;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageName = (specifier) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
const packageOf = (absolute) => PACKAGES.find((pkg) => absolute === join(ROOT, pkg.dir) || absolute.startsWith(join(ROOT, pkg.dir) + sep));

const problems = [];
for (const pkg of PACKAGES) {
  // A package built by a bundler (the console: Vite) ships its imports inside its files: its devDependencies count.
  const bundled = existsSync(join(ROOT, pkg.dir, 'vite.config.ts'));
  const declared = new Set(
    Object.keys({ ...pkg.json.dependencies, ...pkg.json.peerDependencies, ...(bundled ? pkg.json.devDependencies : {}) }),
  );
  const used = new Set();
  for (const file of sourceFiles(join(ROOT, pkg.dir, 'src'))) {
    const where = relative(ROOT, file);
    const test = isTestFile(where);
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        const owner = packageOf(target);
        if (!test && owner !== pkg) problems.push(`${where}: imports ${specifier}, outside ${pkg.json.name}; import packages by name`);
        else if (owner && owner !== pkg && target.startsWith(join(ROOT, owner.dir, 'src')))
          problems.push(`${where}: imports ${owner.json.name}'s sources by path (${specifier}); use its name and public exports`);
        continue;
      }
      if (test || specifier.startsWith('node:') || BUILTINS.has(specifier)) continue;
      const name = packageName(specifier);
      used.add(name);
      if (!declared.has(name) && name !== pkg.json.name)
        problems.push(`${where}: imports ${name}, which ${pkg.dir}/package.json does not declare`);
    }
  }
  // A dependency that supplies another declared package's peer (sharp for @switchyard/core) is used through it.
  for (const name of used)
    for (const peer of Object.keys(PACKAGES.find((other) => other.json.name === name)?.json.peerDependencies ?? {})) used.add(peer);
  // Build tools a bundled package declares are not imported by its code; its runtime dependencies must be.
  for (const name of Object.keys({ ...pkg.json.dependencies, ...pkg.json.peerDependencies }))
    if (!used.has(name)) problems.push(`${pkg.dir}/package.json: declares ${name}, which its code never imports`);
}
for (const dir of OTHER_ROOTS) {
  for (const file of sourceFiles(join(ROOT, dir))) {
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const owner = packageOf(resolve(dirname(file), specifier));
      if (owner)
        problems.push(`${relative(ROOT, file)}: imports ${owner.json.name} by path (${specifier}); use its name and public exports`);
    }
  }
}

if (problems.length > 0) {
  console.error(`package boundaries: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`package boundaries: ${PACKAGES.length} packages checked, no problems`);
