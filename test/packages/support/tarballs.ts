import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../support/cli.js';
import { run, type Run } from '../../support/run.js';
import { startPrebuildMirror } from './prebuild-mirror.js';

export { run, type Run } from '../../support/run.js';

/** `npm pack` of every workspace package into one folder: package name → tarball path. */
export async function packWorkspaces(): Promise<Map<string, string>> {
  const destination = await mkdtemp(join(tmpdir(), 'switchyard-tarballs-'));
  const packed = await run('npm', ['pack', '--workspaces', '--json', '--pack-destination', destination], { cwd: ROOT });
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.output}`);
  const entries = JSON.parse(packed.output.slice(packed.output.indexOf('['))) as { name: string; filename: string }[];
  return new Map(entries.map((entry) => [entry.name, join(destination, entry.filename)]));
}

/**
 * `npm pack` of packages as the repository installed them (from its node_modules), for
 * a consumer project that needs them when no registry may answer; their scripts are
 * not run: they are published packages already.
 */
export async function packInstalled(names: readonly string[]): Promise<string[]> {
  const destination = await mkdtemp(join(tmpdir(), 'switchyard-installed-'));
  const folders = names.map((name) => join(ROOT, 'node_modules', name));
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination, ...folders], { cwd: ROOT });
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.output}`);
  const entries = JSON.parse(packed.output.slice(packed.output.indexOf('['))) as { filename: string }[];
  return entries.map((entry) => join(destination, entry.filename));
}

/** Packages with install scripts that an npm 11 project must allow (the repository's own list). */
async function allowedScripts(): Promise<Record<string, boolean>> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
  return manifest.allowScripts;
}

/**
 * A fresh project outside the repository (no TypeScript, no tsx) that installs
 * the given tarballs from the registry's packages, as a user would.
 */
export async function freshProject(name: string, tarballs: readonly string[]): Promise<{ dir: string; install: Run }> {
  const dir = await mkdtemp(join(tmpdir(), `switchyard-${name}-`));
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name, private: true, type: 'module', allowScripts: await allowedScripts() }, null, 2),
  );
  const mirror = await startPrebuildMirror();
  try {
    const install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], {
      cwd: dir,
      env: { ...process.env, ...mirror.env },
    });
    return { dir, install };
  } finally {
    await mirror.close();
  }
}

/** Every package installed under `node_modules`, nested ones included: name → version. */
export async function installedPackages(dir: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  async function walk(modules: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(modules, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const folders = entry.name.startsWith('@')
        ? (await readdir(join(modules, entry.name))).map((inner) => join(entry.name, inner))
        : [entry.name];
      for (const folder of folders) {
        const manifest = await readFile(join(modules, folder, 'package.json'), 'utf8').catch(() => undefined);
        if (manifest === undefined) continue;
        const { name, version } = JSON.parse(manifest) as { name: string; version: string };
        found.set(name, version);
        await walk(join(modules, folder, 'node_modules'));
      }
    }
  }
  await walk(join(dir, 'node_modules'));
  return found;
}

/** Bytes on disk under a folder (files only, links not followed). */
export async function sizeOnDisk(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    total += await sizeOnDisk(join(path, entry.name));
  }
  return total;
}

export async function writeFiles(dir: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}
