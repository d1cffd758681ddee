#!/usr/bin/env node
// `.ci/run`, after `npm ci`: keeps the better-sqlite3 binary this install compiled in
// prebuild-install's own download cache (<npm cache>/_prebuilds), under the name a download of
// the official prebuild would have, so the next install on this machine unpacks it instead of
// compiling SQLite again (minutes of both cores: prebuild-install cannot reach GitHub here and
// falls back to node-gyp). The entry is keyed by version, Node ABI, platform and architecture,
// as a downloaded one is; an entry already there is left alone.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const util = require('prebuild-install/util');
const packageDir = dirname(require.resolve('better-sqlite3/package.json'));
const pkg = require('better-sqlite3/package.json');
const binary = 'build/Release/better_sqlite3.node';

if (!existsSync(join(packageDir, binary))) {
  console.log('prebuild cache: better-sqlite3 has no compiled binary to keep');
  process.exit(0);
}
const url = util.getDownloadUrl({ pkg, platform: process.platform, arch: process.arch, runtime: 'node', 'tag-prefix': 'v' });
const cached = util.cachedPrebuild(url);
if (existsSync(cached)) {
  console.log(`prebuild cache: ${cached} is there already`);
  process.exit(0);
}
mkdirSync(dirname(cached), { recursive: true });
const partial = `${cached}.${process.pid}.tmp`;
execFileSync('tar', ['-czf', partial, '-C', packageDir, binary]);
renameSync(partial, cached);
console.log(`prebuild cache: kept better-sqlite3 ${pkg.version} for Node ABI ${process.versions.modules} at ${cached}`);
