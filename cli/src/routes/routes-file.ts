/**
 * Reading a route file from disk (`switchyard routes apply|diff FILE`). The
 * format itself (parse, serialize, line and column of errors) is
 * @switchyard/client/routes-file, shared with the console's Import and Export.
 */
import { readFile } from 'node:fs/promises';
import { parseRoutesFile, RoutesFileError, type RoutesFile } from '@switchyard/client/routes-file';

export { formatRoutesFile, parseRoutesFile, ROUTES_FORMAT, RoutesFileError, type RoutesFile } from '@switchyard/client/routes-file';

export async function readRoutesFile(path: string): Promise<RoutesFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new RoutesFileError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return parseRoutesFile(path, text);
}
