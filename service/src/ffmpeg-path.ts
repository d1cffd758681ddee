import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * The ffmpeg poster frames run: FFMPEG_PATH as given (a path that names
 * nothing makes `?frame` 501, as no ffmpeg does, and says so at start), else
 * the first executable `ffmpeg` on PATH, else none.
 */
export function resolveFfmpeg(configured: string | undefined, path: string | undefined): string | undefined {
  if (configured !== undefined) return configured;
  for (const dir of (path ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, 'ffmpeg');
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
