import { transform } from 'esbuild';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../../support/cli.js';

/**
 * Source as node runs it: JavaScript as printed, TypeScript with its types
 * stripped and nothing else changed (the project has no TypeScript, and node 20
 * strips no types).
 */
export async function asJavaScript(code: string, lang: string): Promise<string> {
  if (lang === 'js') return code;
  return (await transform(code, { loader: 'ts', format: 'esm', target: 'node20' })).code;
}

/** The same, for a TypeScript file of the repository. */
export async function compiled(path: string): Promise<string> {
  return asJavaScript(await readFile(join(ROOT, path), 'utf8'), 'ts');
}

/**
 * A folder of its own inside the installed project for one sample, holding its
 * program as `app.mjs`, its fixtures and any other files: samples run side by
 * side do not share files, and the packages resolve from the project's node_modules.
 */
export async function sampleFolder(
  project: string,
  name: string,
  files: { program: string; fixtures?: Record<string, string>; others?: Record<string, string> },
): Promise<string> {
  const dir = join(project, 'readme-samples', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'app.mjs'), files.program);
  for (const [as, fixture] of Object.entries(files.fixtures ?? {})) await copyFile(join(ROOT, fixture), join(dir, as));
  for (const [as, text] of Object.entries(files.others ?? {})) await writeFile(join(dir, as), text);
  return dir;
}
