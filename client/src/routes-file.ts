/**
 * @switchyard/client/routes-file: the route file of routes as code
 * (`switchyard routes export|diff|apply`, the console's Export and Import):
 * YAML or JSON (JSON is YAML), `{"format": "switchyard.routes/v1", "routes": [...]}`,
 * described by cli/schemas/switchyard.routes.v1.schema.json. Pure text in,
 * text out (no Node built-ins), so the CLI and the browser share one parser:
 * syntax errors name their line and column, and so do the entries the service
 * refuses, found in the file by the field it names (`routes[3].path`).
 * Its own entry point, so only those who read route files load `yaml`.
 */
import { isMap, isSeq, LineCounter, parseDocument, stringify, type Document, type Node } from 'yaml';
import type { RestDesiredRoute, RestRoute } from './rest.js';

export const ROUTES_FORMAT = 'switchyard.routes/v1';

export interface RoutesFile {
  /** The name the file was given (a path, or a browser file's name). */
  readonly path: string;
  readonly routes: readonly RestDesiredRoute[];
  /** `FILE:line:col` of a field the service named (`routes[3].path`), or of the file when it is not found. */
  locate(field: string | undefined): string;
}

/** A file that is not a route file: the message names the place (`FILE:line:col: reason`). */
export class RoutesFileError extends Error {
  override readonly name = 'RoutesFileError';
  constructor(
    message: string,
    /** Where in the file, 1-based; absent for a file that could not be read at all. */
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

export function parseRoutesFile(path: string, text: string): RoutesFile {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const fail = (offset: number | undefined, reason: string): never => {
    const { line, col } = lines.linePos(offset ?? 0);
    throw new RoutesFileError(`${path}:${line}:${col}: ${reason}`, line, col);
  };
  const [syntax] = document.errors;
  if (syntax) fail(syntax.pos[0], firstLine(syntax.message));
  const root = document.contents;
  if (!isMap(root)) return fail(root?.range?.[0], 'must be a mapping with "format" and "routes"');
  const format = document.get('format');
  if (format !== ROUTES_FORMAT) fail(nodeAt(document, ['format'])?.range?.[0], `format must be "${ROUTES_FORMAT}"`);
  const unknown = root.items.map((pair) => String((pair.key as { value?: unknown } | null)?.value)).filter((key) => !TOP_FIELDS.has(key));
  if (unknown.length > 0)
    fail(nodeAt(document, [unknown[0]!])?.range?.[0], `${unknown[0]} is not a field of a route file (format, routes)`);
  const routes = nodeAt(document, ['routes']);
  if (!isSeq(routes)) return fail(routes?.range?.[0], 'routes must be a list of routes');
  return {
    path,
    // The entries go to the service as written: it judges every one and names each bad one by index.
    routes: routes.toJSON() as RestDesiredRoute[],
    locate: (field) => {
      const { line, col } = lines.linePos(nodeAt(document, pathOf(field))?.range?.[0] ?? 0);
      return `${path}:${line}:${col}`;
    },
  };
}

/** A route file holding `routes`, sorted by path, then method, so an export diffs well. */
export function formatRoutesFile(routes: readonly RestRoute[], json: boolean): string {
  const entries = [...routes]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.method < b.method ? -1 : a.method > b.method ? 1 : 0))
    .map(({ method, path, middleware, handler, owner }) => ({
      method,
      path,
      ...(middleware.length > 0 ? { middleware: [...middleware] } : {}),
      handler,
      ...(owner === '' ? {} : { owner }),
    }));
  const file = { format: ROUTES_FORMAT, routes: entries };
  return json ? `${JSON.stringify(file, null, 2)}\n` : stringify(file);
}

const TOP_FIELDS = new Set(['format', 'routes', '$schema']);

/** `routes[3].middleware[1]` as routes, 3, middleware, 1. */
function pathOf(field: string | undefined): (string | number)[] {
  if (field === undefined) return [];
  return [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map(([, name, index]) => (index === undefined ? name! : Number(index)));
}

/** The deepest node of the document along `path` (an entry whose field is missing: the entry). */
function nodeAt(document: Document, path: readonly (string | number)[]): Node | undefined {
  for (let depth = path.length; depth > 0; depth--) {
    const node = document.getIn(path.slice(0, depth), true) as Node | undefined;
    if (node?.range) return node;
  }
  return document.contents ?? undefined;
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
