// Baseline for the REST benchmarks: node:http + better-sqlite3 (or mysql2 with
// DATABASE_URL) + jose, doing GET /v1/assets/:id and POST /v1/routing directly.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { extension } from 'mime-types';
import { ulid } from 'ulid';
import { createAuth, requiredEnv } from './baseline-auth.js';
import { openMysqlStore, openSqliteStore, seedRows, type AssetRow, type BaselineStore } from './baseline-store.js';
import { serveHttp } from './serve-http.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const ASSET_PATH = /^\/v1\/assets\/(as_[0-9a-z]{26})$/;
const CDN_URL = process.env.CDN_URL ?? 'http://127.0.0.1/files';

const authorize = createAuth(requiredEnv('AUTH_SECRET'));
const store: BaselineStore = process.env.DATABASE_URL
  ? await openMysqlStore(process.env.DATABASE_URL)
  : openSqliteStore(join(requiredEnv('DATA_DIR'), 'baseline.sqlite'));

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function assetJson(row: AssetRow) {
  return {
    id: row.id,
    type: row.type,
    size: row.size,
    url: `${CDN_URL}/${row.id}/${row.blob_id}.${extension(row.type) || 'bin'}`,
    uploadedAt: new Date(row.uploaded_at).toISOString(),
    createdAt: new Date(row.created_at).toISOString(),
    label: row.label,
    sha256: row.sha256,
    ...(row.width === null ? {} : { width: row.width, height: row.height }),
  };
}

async function getAsset(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
  const auth = await authorize(req, 'assets:read');
  if ('status' in auth) return send(res, auth.status, { code: 'unauthenticated', message: 'refused' });
  const row = await store.getAsset(auth.workspace, id);
  if (!row) return send(res, 404, { code: 'not_found', message: 'no such asset' });
  send(res, 200, assetJson(row));
}

/** GET /v1/assets?pageSize=N[&pageToken=T]: one keyset page, newest first; the token is the last id. */
async function listAssets(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
  const auth = await authorize(req, 'assets:read');
  if ('status' in auth) return send(res, auth.status, { code: 'unauthenticated', message: 'refused' });
  const size = Number(query.get('pageSize') ?? '50');
  if (!Number.isInteger(size) || size < 1 || size > 1000) return send(res, 400, { code: 'invalid_argument', message: 'pageSize' });
  const token = query.get('pageToken');
  const before = token ? Buffer.from(token, 'base64url').toString() : undefined;
  const rows = await store.listAssets(auth.workspace, before, size + 1);
  const page = rows.slice(0, size);
  const nextPageToken = rows.length > size ? Buffer.from(page.at(-1)!.id).toString('base64url') : '';
  send(res, 200, { assets: page.map(assetJson), nextPageToken });
}

async function readJson(req: IncomingMessage, limit = 64 * 1024): Promise<unknown> {
  let text = '';
  req.setEncoding('utf8');
  for await (const chunk of req) {
    text += chunk;
    if (text.length > limit) throw new Error('body too large');
  }
  return JSON.parse(text);
}

async function createRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const auth = await authorize(req, 'routes:write');
  if ('status' in auth) return send(res, auth.status, { code: 'unauthenticated', message: 'refused' });
  const body = (await readJson(req).catch(() => undefined)) as Record<string, unknown> | undefined;
  const method = typeof body?.method === 'string' ? body.method.toUpperCase() : '';
  const { path, handler, middleware = [] } = body ?? {};
  const valid =
    METHODS.has(method) &&
    typeof path === 'string' &&
    /^\/[A-Za-z0-9._~:*/-]{0,1023}$/.test(path) &&
    typeof handler === 'string' &&
    /^[A-Za-z_][\w.-]{0,127}$/.test(handler) &&
    Array.isArray(middleware) &&
    middleware.length <= 32 &&
    middleware.every((m) => typeof m === 'string' && /^[A-Za-z_][\w.-]{0,127}$/.test(m));
  if (!valid) return send(res, 400, { code: 'invalid_argument', message: 'bad route' });
  const route = { id: `rt_${ulid().toLowerCase()}`, method, path, middleware: middleware as string[], handler, createdAt: new Date() };
  const shape = path.replace(/:[A-Za-z_]\w*/g, ':');
  const shape_hash = createHash('sha256').update(shape).digest('hex');
  const row = {
    id: route.id,
    workspace: auth.workspace,
    method,
    path,
    shape,
    shape_hash,
    middleware: JSON.stringify(route.middleware),
    handler,
    created_at: route.createdAt.getTime(),
  };
  if (!(await store.insertRoute(row))) return send(res, 409, { code: 'already_exists', message: 'duplicate route' });
  send(res, 201, { ...route, createdAt: route.createdAt.toISOString() }, { location: `/v1/routing/${route.id}` });
}

const server = createServer((req, res) => {
  const [pathname = '', search = ''] = (req.url ?? '').split('?', 2);
  const asset = req.method === 'GET' ? ASSET_PATH.exec(pathname) : null;
  const work = asset?.[1]
    ? getAsset(req, res, asset[1])
    : req.method === 'GET' && pathname === '/v1/assets'
      ? listAssets(req, res, new URLSearchParams(search))
      : req.method === 'POST' && req.url === '/v1/routing'
        ? createRoute(req, res)
        : Promise.resolve(send(res, 404, { code: 'not_found', message: 'no such endpoint' }));
  work.catch((error: unknown) => send(res, 500, { code: 'internal', message: String(error) }));
});

// One asset to read, the same shape as an uploaded 1x1 PNG in ours.
const now = Date.now();
const seed: AssetRow = {
  id: `as_${ulid().toLowerCase()}`,
  workspace: process.env.SEED_WORKSPACE ?? 'bench',
  label: 'bench',
  blob_id: `bl_${ulid().toLowerCase()}`,
  blob_key: 'bench/seed',
  type: 'image/png',
  size: 68,
  sha256: 'f'.repeat(64),
  width: 1,
  height: 1,
  created_at: now,
  uploaded_at: now,
  version: 1,
};
await store.insertAsset(seed);
// SEED_ASSETS more, for the listing benchmark (rest-list-assets).
await store.insertAssets(seedRows(seed.workspace, Number(process.env.SEED_ASSETS ?? 0)));

serveHttp(server, { extra: `asset=${seed.id}`, stop: () => store.close() });
