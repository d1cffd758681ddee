// Export and Import's file work. The route file format (YAML, `format:
// switchyard.routes/v1`) is the CLI's own, from @switchyard/client/routes-file;
// it and the `yaml` package are fetched only when a file is exported or
// imported, not with the console's first load.
import type { RestRoute } from '@switchyard/client/web';
import type { RoutesFile } from '@switchyard/client/routes-file';
import type { Api } from '../../lib/api.js';

const loadFormat = () => import('@switchyard/client/routes-file');

/** The whole current table, every page of it. */
async function currentRoutes(api: Api): Promise<RestRoute[]> {
  const routes: RestRoute[] = [];
  let pageToken = '';
  do {
    const page = await api.listRoutes({ pageSize: 1000, ...(pageToken ? { pageToken } : {}) });
    routes.push(...page.routes);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return routes;
}

/** Downloads the current table as a route file named `name`; answers how many routes it holds. */
export async function exportRoutes(api: Api, name: string): Promise<number> {
  const [routes, { formatRoutesFile }] = await Promise.all([currentRoutes(api), loadFormat()]);
  const url = URL.createObjectURL(new Blob([formatRoutesFile(routes, false)], { type: 'application/yaml' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // The download has its bytes once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 0);
  return routes.length;
}

/** Where a route file is wrong: its line and column, and why. */
export interface FileProblem {
  readonly line?: number;
  readonly column?: number;
  readonly reason: string;
}

/** The file parsed, or what is wrong with it and where. */
export async function readRoutesFile(file: File): Promise<{ readonly file: RoutesFile } | { readonly problem: FileProblem }> {
  const [text, { parseRoutesFile, RoutesFileError }] = await Promise.all([file.text(), loadFormat()]);
  try {
    return { file: parseRoutesFile(file.name, text) };
  } catch (error) {
    if (!(error instanceof RoutesFileError)) throw error;
    const prefix = `${file.name}:${error.line}:${error.column}: `;
    return {
      problem: {
        ...(error.line === undefined ? {} : { line: error.line, column: error.column }),
        reason: error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message,
      },
    };
  }
}
