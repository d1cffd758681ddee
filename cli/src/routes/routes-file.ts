/**
 * A route file (`switchyard routes apply|diff FILE`): YAML or JSON (JSON is
 * YAML), `{"format": "switchyard.routes/v1", "routes": [...]}`, described by
 * cli/schemas/switchyard.routes.v1.schema.json. Syntax errors are reported
 * with their line and column; so are the entries the service refuses, found
 * in the file by the field it names (`routes[3].path`).
 */
import { readFile } from 'node:fs/promises';
import { isMap, isSeq, LineCounter, parseDocument, stringify, type Document, type Node } from 'yaml';
import type { RestDesiredRoute, RestRoute } from '@switchyard/client';

export const ROUTES_FORMAT = 'switchyard.routes/v1';

export interface RoutesFile {
  readonly path: string;
  readonly routes: readonly RestDesiredRoute[];
  /** `FILE:line:col` of a field the service named (`routes[3].path`), or of the file when it is not found. */
  locate(field: string | undefined): string;
}

/** A file that cannot be read or is not a route file: the message names the place. */
export class RoutesFileError extends Error {
  override readonly name = 'RoutesFileError';
}

export async function readRoutesFile(path: string): Promise<RoutesFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new RoutesFileError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return parseRoutesFile(path, text);
}

export function parseRoutesFile(path: string, text: string): RoutesFile {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    const { line, col } = lines.linePos(offset ?? 0);
    return `${path}:${line}:${col}`;
  };
  const [syntax] = document.errors;
  if (syntax) throw new RoutesFileError(`${at(syntax.pos[0])}: ${firstLine(syntax.message)}`);
  const root = document.contents;
  if (!isMap(root)) throw new RoutesFileError(`${at(root?.range?.[0])}: must be a mapping with "format" and "routes"`);
  const format = document.get('format');
  if (format !== ROUTES_FORMAT)
    throw new RoutesFileError(`${at(nodeAt(document, ['format'])?.range?.[0])}: format must be "${ROUTES_FORMAT}"`);
  const unknown = root.items.map((pair) => String((pair.key as { value?: unknown } | null)?.value)).filter((key) => !TOP_FIELDS.has(key));
  if (unknown.length > 0)
    throw new RoutesFileError(
      `${at(nodeAt(document, [unknown[0]!])?.range?.[0])}: ${unknown[0]} is not a field of a route file (format, routes)`,
    );
  const routes = nodeAt(document, ['routes']);
  if (!isSeq(routes)) throw new RoutesFileError(`${at(routes?.range?.[0])}: routes must be a list of routes`);
  return {
    path,
    // The entries go to the service as written: it judges every one and names each bad one by index.
    routes: routes.toJSON() as RestDesiredRoute[],
    locate: (field) => at(nodeAt(document, pathOf(field))?.range?.[0]),
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
