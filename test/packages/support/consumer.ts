// A TypeScript consumer of the published packages, written as an embedder
// would: the core with a store of its own (a JavaScript file with JSDoc types,
// so one file is both type-checked and run), that store proved by
// @switchyard/core/testing under node:test, and the typed client.

const TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    strict: true,
    noEmit: true,
    allowJs: true,
    checkJs: true,
    skipLibCheck: false,
    // The project installs no @types of its own; the repository's Node types stand in.
    types: ['node'],
    typeRoots: [new URL('../../../node_modules/@types', import.meta.url).pathname],
  },
  include: ['*.ts', '*.mjs'],
};

/** A RouteStore over rows serialized to JSON, as a key-value database would hold them. */
const MAP_ROUTE_STORE = `// @ts-check
import { SwitchyardError, revisionRefusals, wholeRevisions } from '@switchyard/core';

/** @typedef {import('@switchyard/core').RouteRecord} RouteRecord */
/** @typedef {import('@switchyard/core').NewRouteRecord} NewRouteRecord */
/** @typedef {import('@switchyard/core').RouteRecordUpdate} RouteRecordUpdate */
/** @typedef {import('@switchyard/core').RouteChange} RouteChange */
/** @typedef {import('@switchyard/core').RouteCursor} RouteCursor */
/** @typedef {import('@switchyard/core').RouteStore} RouteStore */
/** @typedef {import('@switchyard/core').RouteWriteOrigin} RouteWriteOrigin */
/** @typedef {import('@switchyard/core').RouteRevisionWrite} RouteRevisionWrite */
/** @typedef {import('@switchyard/core').RouteRevisionWritten} RouteRevisionWritten */

/** Routes kept as JSON rows, with a revision and a change log per workspace, as a consumer might write one. @implements {RouteStore} */
export class JsonRowRouteStore {
  /** @type {Map<string, string>} id → JSON row */
  #rows = new Map();
  /** @type {Map<string, RouteChange[]>} workspace → every change, oldest first */
  #log = new Map();

  /** @param {NewRouteRecord} record @param {RouteWriteOrigin} [origin] @returns {Promise<RouteRecord>} */
  async insert(record, origin) {
    this.#refuseDuplicate(record, undefined);
    if (this.#rows.has(record.id)) throw new SwitchyardError('already_exists', 'route id already exists');
    const after = this.#write({ ...record, revision: this.#revisionOf(record.workspace) + 1 });
    this.#changes(record.workspace).push({ kind: 'create', ...facts(after, origin), before: undefined, after });
    return after;
  }

  /** @param {string} workspace @param {string} id @param {RouteRecordUpdate} update @param {RouteWriteOrigin} [origin] */
  async update(workspace, id, update, origin) {
    const before = await this.get(workspace, id);
    if (!before) return undefined;
    this.#refuseDuplicate({ ...before, ...update }, id);
    const after = this.#write({ ...before, ...update, revision: this.#revisionOf(workspace) + 1 });
    this.#changes(workspace).push({ kind: 'update', ...facts(after, origin), before, after });
    return after;
  }

  /** @param {string} workspace @param {string} id @param {RouteWriteOrigin} [origin] */
  async delete(workspace, id, origin) {
    const before = await this.get(workspace, id);
    if (!before) return undefined;
    this.#rows.delete(id);
    const revision = this.#revisionOf(workspace) + 1;
    const time = new Date(origin?.time ?? 0);
    this.#changes(workspace).push({ kind: 'delete', ...facts(before, origin), revision, time, before, after: undefined });
    return { revision };
  }

  /** Every write checked against the table as it will be, then all made: one revision or none. @param {RouteRevisionWrite} write @returns {Promise<RouteRevisionWritten>} */
  async applyRevision(write) {
    const { workspace, origin } = write;
    const current = this.#revisionOf(workspace);
    if (write.expectedRevision !== undefined && write.expectedRevision !== current) throw revisionRefusals.stale(write.expectedRevision, current);
    if (write.delete.length + write.update.length + write.create.length === 0) return { revision: current, changes: [] };
    const revision = current + 1;
    /** @type {Set<string>} */
    const named = new Set();
    /** @param {string} id @returns {RouteRecord} */
    const before = (id) => {
      const row = this.#rows.get(id);
      const record = row === undefined ? undefined : parse(row);
      if (record?.workspace !== workspace || named.has(id)) throw revisionRefusals.missing(id);
      named.add(id);
      return record;
    };
    const deleted = write.delete.map(before);
    const updated = write.update.map(({ id, update }) => {
      const old = before(id);
      return { before: old, after: { ...old, ...update, revision } };
    });
    const created = write.create.map((record) => {
      if (this.#rows.has(record.id) || named.has(record.id)) throw new SwitchyardError('already_exists', 'route id already exists');
      named.add(record.id);
      return { ...record, revision };
    });
    /** @param {{ method: string, shape: string }} record */
    const key = (record) => \`\${record.method} \${record.shape}\`;
    // Read synchronously, as everything from the revision check on: no other write can come between (an await here would let one in).
    const staying = [...this.#rows.values()].map(parse).filter((record) => record.workspace === workspace && !named.has(record.id));
    const taken = new Set(staying.map(key));
    for (const record of [...updated.map((change) => change.after), ...created]) {
      if (taken.has(key(record)))
        throw new SwitchyardError('already_exists', 'a route with this method and path shape already exists', [{ field: 'path', reason: 'duplicate' }]);
      taken.add(key(record));
    }
    for (const record of deleted) this.#rows.delete(record.id);
    /** @param {RouteRecord} record */
    const at = (record) => ({ ...facts(record, origin), revision });
    /** @type {RouteChange[]} */
    const changes = [
      ...deleted.map((old) => /** @type {RouteChange} */ ({ kind: 'delete', ...at(old), before: old, after: undefined })),
      ...updated.map((change) => {
        const after = this.#write(change.after);
        return /** @type {RouteChange} */ ({ kind: 'update', ...at(after), before: change.before, after });
      }),
      ...created.map((record) => {
        const after = this.#write(record);
        return /** @type {RouteChange} */ ({ kind: 'create', ...at(after), before: undefined, after });
      }),
    ];
    this.#changes(workspace).push(...changes);
    return { revision, changes };
  }

  /** @param {string} workspace @param {string} id */
  async get(workspace, id) {
    const row = this.#rows.get(id);
    const record = row === undefined ? undefined : parse(row);
    return record?.workspace === workspace ? record : undefined;
  }

  /** @param {string} workspace */
  async list(workspace) {
    return [...this.#rows.values()]
      .map(parse)
      .filter((record) => record.workspace === workspace)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  /** @param {string} workspace @param {RouteCursor | undefined} after @param {number} limit */
  async page(workspace, after, limit) {
    const all = await this.list(workspace);
    const later = after === undefined ? all : all.filter((r) => r.createdAt.getTime() > after.createdAt.getTime() || (r.createdAt.getTime() === after.createdAt.getTime() && r.id > after.id));
    return later.slice(0, limit);
  }

  /** @param {string} workspace */
  async count(workspace) {
    return (await this.list(workspace)).length;
  }

  /** @param {string} workspace */
  async revision(workspace) {
    return this.#revisionOf(workspace);
  }

  /** @param {string} workspace */
  async snapshot(workspace) {
    return { revision: this.#revisionOf(workspace), records: await this.list(workspace) };
  }

  /** @param {string} workspace @param {number} revision @param {number} limit */
  async changesSince(workspace, revision, limit) {
    if (revision < 0 || revision > this.#revisionOf(workspace)) return undefined;
    const later = this.#changes(workspace).filter((change) => change.revision > revision);
    return wholeRevisions(later.slice(0, limit + 1), limit) ?? later.filter((change) => change.revision === revision + 1);
  }

  /** @param {RouteRecord} record */
  #write(record) {
    this.#rows.set(record.id, JSON.stringify({ ...record, createdAt: record.createdAt.toISOString(), updatedAt: record.updatedAt.toISOString() }));
    return parse(/** @type {string} */ (this.#rows.get(record.id)));
  }

  /** @param {{ workspace: string, method: string, shape: string }} record @param {string | undefined} self */
  #refuseDuplicate(record, self) {
    const rows = [...this.#rows.values()].map(parse);
    if (rows.some((row) => row.id !== self && row.workspace === record.workspace && row.method === record.method && row.shape === record.shape)) {
      throw new SwitchyardError('already_exists', 'a route with this method and path shape already exists', [{ field: 'path', reason: 'duplicate' }]);
    }
  }

  /** @param {string} workspace */
  #changes(workspace) {
    let changes = this.#log.get(workspace);
    if (!changes) this.#log.set(workspace, (changes = []));
    return changes;
  }

  /** @param {string} workspace */
  #revisionOf(workspace) {
    return this.#changes(workspace).at(-1)?.revision ?? 0;
  }
}

/** What a change records of a write of \`record\`. @param {RouteRecord} record @param {RouteWriteOrigin | undefined} origin */
function facts(record, origin) {
  return { revision: record.revision, id: record.id, time: new Date(origin?.time ?? record.updatedAt), actor: origin?.actor ?? '', owner: record.owner };
}

/** @param {string} row @returns {RouteRecord} */
function parse(row) {
  const fields = JSON.parse(row);
  return { ...fields, createdAt: new Date(fields.createdAt), updatedAt: new Date(fields.updatedAt) };
}
`;

const MAP_ROUTE_STORE_TEST = `// @ts-check
import test from 'node:test';
import { routeStoreConformance } from '@switchyard/core/testing';
import { JsonRowRouteStore } from './map-route-store.mjs';

routeStoreConformance(test, { name: 'json-rows', create: async () => ({ store: new JsonRowRouteStore() }) });
`;

const CONSUMER = `import { createReadStream } from 'node:fs';
import { createSwitchyard, createHmacTokenVerifier, isSwitchyardError, MemoryAssetStore, MemoryBlobStore, type Asset, type RouteMatch, type Switchyard } from '@switchyard/core';
import { createSwitchyardClient, resumableUpload, type ResumableUploadOptions, type SwitchyardClient } from '@switchyard/client';
import { JsonRowRouteStore } from './map-route-store.mjs';

const switchyard: Switchyard = createSwitchyard({
  routeStore: new JsonRowRouteStore(),
  assetStore: new MemoryAssetStore(),
  blobStore: new MemoryBlobStore(),
  cdnUrl: 'https://cdn.example.com/files',
});
const verifier = createHmacTokenVerifier('a-secret-of-at-least-thirty-two-bytes!!');

export async function embedded(token: string): Promise<[RouteMatch, Asset]> {
  const caller = await verifier.verify(token);
  await switchyard.routes.create(caller, { method: 'GET', path: '/users/:id', middleware: ['auth'], handler: 'getUser' });
  const match = await switchyard.routes.match(caller, { method: 'GET', path: '/users/42' });
  const asset = await switchyard.assets.upload(caller, { body: createReadStream('logo.png'), label: 'logo' });
  return [match, asset];
}

export function codeOf(error: unknown): string | undefined {
  return isSwitchyardError(error) ? error.code : undefined;
}

export async function remote(baseUrl: string, token: string): Promise<string> {
  const client: SwitchyardClient = createSwitchyardClient({ baseUrl, protocol: 'grpc', token });
  try {
    const created = await client.routes.createRoute({ method: 'GET', path: '/users/:id', middleware: ['auth'], handler: 'getUser' });
    const uploaded = await client.uploadAsset(new Uint8Array([1, 2, 3]), { label: 'bytes' });
    const fetched = await client.assets.getAsset({ id: uploaded.id });
    const options: ResumableUploadOptions = { label: 'big', chunkBytes: 8 * 1024 * 1024, onProgress: (committed: number, total: number | undefined) => void [committed, total] };
    const resumed = await resumableUpload(client, createReadStream('logo.png'), options);
    const upload = await client.uploads.getUpload({ id: 'up_00000000000000000000000000' });
    return \`\${created.id} \${fetched.url} \${resumed.sha256} \${upload.offset}\`;
  } finally {
    client.close();
  }
}
`;

/**
 * @switchyard/dispatch as a service adopts it: the core in process, a
 * SyncedRouteTable following routes.watch, and node:http serving by it.
 */
const DISPATCH_APP = `import { once } from 'node:events';
import { createServer } from 'node:http';
import { SCOPES, SyncedRouteTable, createPrincipal, createSwitchyard, memoryAdapters } from '@switchyard/core';
import { createDispatcher } from '@switchyard/dispatch';
import { nodeListener } from '@switchyard/dispatch/node';

const switchyard = createSwitchyard({ ...memoryAdapters(), cdnUrl: 'https://cdn.example.com/files' });
const caller = createPrincipal('service', 'demo', SCOPES);
const following = new AbortController();
const table = new SyncedRouteTable();
void table.follow(switchyard.routes.watch(caller, { signal: following.signal }));
const dispatcher = createDispatcher({
  table,
  handlers: { getUser: (ctx) => ({ id: ctx.params.id, revision: ctx.revision }) },
  middleware: { tag: async (ctx, next) => { ctx.setHeader('x-tag', 'seen'); return next(); } },
  logger: null,
});
const server = createServer(nodeListener(dispatcher)).listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
const base = \`http://127.0.0.1:\${port}\`;

await switchyard.routes.create(caller, { method: 'get', path: '/users/:id', middleware: ['tag'], handler: 'getUser' });
// The table follows the core's watch: the route lands a moment after its create.
let answer = await fetch(\`\${base}/users/42\`);
for (let tries = 0; answer.status !== 200 && tries < 100; tries++) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  answer = await fetch(\`\${base}/users/42\`);
}
console.log(answer.status, answer.headers.get('x-tag'), JSON.stringify(await answer.json()));
console.log((await fetch(\`\${base}/nowhere\`)).status);
following.abort();
server.close();
`;

export const CONSUMER_FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify(TSCONFIG, null, 2),
  'map-route-store.mjs': MAP_ROUTE_STORE,
  'map-route-store.test.mjs': MAP_ROUTE_STORE_TEST,
  'consumer.ts': CONSUMER,
  'dispatch-app.mjs': DISPATCH_APP,
};
