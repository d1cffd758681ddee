// A small typed client of the gateway's `/v1` REST interface over `fetch`, for
// scripts and browsers that would rather not speak Connect (docs/rest.md).
// The response types mirror the gateway's views (gateway/src/rest/views.ts);
// the client test checks them against a live gateway.
import type { TokenSource } from './options.js';
import { webNameOf } from './web-sources.js';

export interface RestRoute {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly middleware: readonly string[];
  readonly handler: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The workspace's route-table revision this route was last written at. */
  readonly revision: number;
  /** The team or tool that manages the route (routes as code); `""` when none. */
  readonly owner: string;
}

/** A route as an apply takes it. */
export interface RestDesiredRoute {
  readonly method: string;
  readonly path: string;
  readonly middleware?: readonly string[];
  readonly handler: string;
  /** The apply's owner, or left out. */
  readonly owner?: string;
}

/** What an apply or rollback did (or, with dryRun, would do). */
export interface RestApplyResult {
  /** The revision written; with nothing to change, or for a dry run, the one planned against. */
  readonly revision: number;
  readonly created: readonly RestRoute[];
  readonly updated: readonly { readonly before: RestRoute; readonly after: RestRoute }[];
  readonly deleted: readonly RestRoute[];
  readonly unchanged: number;
}

/** One entry of the route change log. */
export interface RestRouteChange {
  readonly revision: number;
  readonly time: string;
  readonly actor: string;
  readonly owner: string;
  readonly kind: 'create' | 'update' | 'delete';
  readonly before: RestRoute | null;
  readonly after: RestRoute | null;
}

export interface RestRouteChangePage {
  readonly changes: readonly RestRouteChange[];
  /** Empty once the page reaches the current revision. */
  readonly nextPageToken: string;
}

export interface RestRoutePage {
  readonly routes: readonly RestRoute[];
  /** Empty on the last page. */
  readonly nextPageToken: string;
}

export interface RestAsset {
  readonly id: string;
  readonly type: string;
  readonly size: number;
  readonly url: string;
  readonly label: string;
  /** The client's file name (at most 255 characters, no control characters); `""` when none. `url + '?download'` saves the file under it. */
  readonly name: string;
  readonly sha256: string;
  /** Pixels as shown, for images and videos whose headers could be read. */
  readonly width?: number;
  readonly height?: number;
  /** Audio and video: length in milliseconds. */
  readonly durationMs?: number;
  /** PDFs: page count. */
  readonly pages?: number;
  /** Images: a ThumbHash (base64); `thumbHashToDataURL` of the `thumbhash` package turns it into a blurred preview. */
  readonly placeholder?: string;
  readonly uploadedAt: string;
  readonly visibility: 'public' | 'private';
}

export interface RestAssetPage {
  readonly assets: readonly RestAsset[];
  /** Empty on the last page. */
  readonly nextPageToken: string;
}

/** One change of a workspace's assets (docs/assets.md): what `GET /v1/assets/{id}/history` lists and `watchAssets` delivers. */
export interface RestAssetChange {
  readonly type: 'asset.created' | 'asset.replaced' | 'asset.updated' | 'asset.deleted';
  /** The workspace's asset revision this change brought; a batch delete's changes share one. */
  readonly revision: number;
  readonly time: string;
  /** Who made it: the caller's token `sub`. */
  readonly actor: string;
  readonly assetId: string;
  /** The asset after the change; `null` for a delete. */
  readonly asset: RestAsset | null;
  /** `asset.replaced` only: the file the replace displaced. */
  readonly previous?: { readonly type: string; readonly size: number; readonly sha256: string };
  /** Absent for plain writes: `restore` (a version made current, or back from the trash) or `purge`. */
  readonly reason?: 'restore' | 'purge';
  /** The version a restore made current, or the versions a purge removed. */
  readonly versionIds?: readonly string[];
}

/** A file an asset held before a replace (`GET /v1/assets/{id}/versions`). */
export interface RestAssetVersion {
  readonly id: string;
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
  /** The asset's name while this file was current. */
  readonly name: string;
  readonly uploadedAt: string;
  /** Who uploaded it; `""` for files uploaded before versions were kept. */
  readonly actor: string;
  readonly replacedAt: string;
  readonly width?: number;
  readonly height?: number;
  readonly durationMs?: number;
  readonly pages?: number;
  readonly placeholder?: string;
}

/** A deleted asset in the workspace's trash (`GET /v1/trash`). */
export interface RestTrashedAsset extends RestAsset {
  readonly deletedAt: string;
  readonly deletedBy: string;
  /** When `switchyard gc` purges it. */
  readonly purgeAt: string;
}

export interface RestTrashPage {
  readonly assets: readonly RestTrashedAsset[];
  /** Empty on the last page. */
  readonly nextPageToken: string;
}

export interface RestAssetChangePage {
  /** Newest first. */
  readonly changes: readonly RestAssetChange[];
  /** Empty on the last page. */
  readonly nextPageToken: string;
}

export interface RestSignedUrl {
  readonly url: string;
  readonly expiresAt: string;
}

export interface RestWorkspacePolicy {
  readonly allowedTypes: readonly string[];
  readonly maxUploadBytes: number;
  readonly defaultVisibility: 'public' | 'private';
  /** JPEG, PNG, WebP and AVIF uploads are stored without EXIF, XMP and IPTC, their orientation applied. */
  readonly stripImageMetadata: boolean;
  /** Replaced files each asset keeps as versions (0-100). */
  readonly keepVersions: number;
  /** Days versions and deleted assets are kept (0-365; 0 keeps neither). */
  readonly retentionDays: number;
}

export interface RestWorkspaceUsage {
  readonly assets: number;
  /** Bytes of the assets' current files. */
  readonly bytes: number;
  /** Bytes of their versions. */
  readonly versionBytes: number;
  /** Bytes of the trash (deleted assets' files and versions). */
  readonly trashBytes: number;
  readonly routes: number;
}

/** Who the credential is (`GET /v1/caller`): a token's or an API key's subject, workspace and scopes; a key's id and expiry. */
export interface RestCaller {
  readonly subject: string;
  readonly workspace: string;
  readonly scopes: readonly string[];
  readonly keyId: string | null;
  readonly expiresAt: string | null;
}

/** An API key (`/v1/keys`, scope workspace:admin); `secret` only in the answers of create and roll. */
export interface RestKey {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly string[];
  readonly createdBy: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
  readonly secret?: string;
}

/** A webhook endpoint (`/v1/webhooks`, scope workspace:admin); `secret` only in the answer of create. */
export interface RestWebhook {
  readonly id: string;
  readonly url: string;
  /** Event types or patterns (`asset.*`, `route.deleted`, `*`). */
  readonly events: readonly string[];
  readonly description: string;
  readonly enabled: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly secret?: string;
}

/** One try at a delivery. */
export interface RestDeliveryAttempt {
  readonly at: string;
  /** 0 when there was no answer. */
  readonly statusCode: number;
  readonly durationMs: number;
  readonly error: string;
  /** At most 1 KiB of the answer. */
  readonly response: string;
}

/** One event for one endpoint, with its attempts. */
export interface RestDelivery {
  readonly id: string;
  readonly webhookId: string;
  /** The `webhook-id` header of every attempt. */
  readonly messageId: string;
  readonly eventType: string;
  readonly status: 'pending' | 'succeeded' | 'failed';
  readonly attempts: readonly RestDeliveryAttempt[];
  readonly nextAttemptAt: string | null;
  readonly createdAt: string;
}

type Visibility = 'public' | 'private';

export interface RestMatch {
  readonly route: RestRoute;
  readonly params: Readonly<Record<string, string>>;
}

export interface RestErrorDetail {
  readonly field: string;
  readonly reason: string;
}

/** A non-2xx answer: the HTTP status and the gateway's JSON error. */
export class SwitchyardRestError extends Error {
  override readonly name = 'SwitchyardRestError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly RestErrorDetail[],
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

export interface RestClientOptions {
  /** The gateway, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  readonly token?: TokenSource;
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
}

/** A file for multipart uploads: a `Blob` (or `File`), or bytes. */
export type RestUploadSource = Blob | Uint8Array;

export interface RestClient {
  createRoute(route: { method: string; path: string; middleware?: readonly string[]; handler: string; owner?: string }): Promise<RestRoute>;
  getRoute(id: string): Promise<RestRoute>;
  matchRoute(method: string, path: string): Promise<RestMatch>;
  /** `atRevision`: the table as it was then (within the kept history). */
  listRoutes(query?: { pageSize?: number; pageToken?: string; atRevision?: number }): Promise<RestRoutePage>;
  updateRoute(
    id: string,
    changes: { method?: string; path?: string; middleware?: readonly string[]; handler?: string; owner?: string },
  ): Promise<RestRoute>;
  deleteRoute(id: string): Promise<void>;
  /** Makes the owner's routes `routes`, in one revision (routes as code). */
  applyRoutes(request: {
    routes: readonly RestDesiredRoute[];
    owner?: string;
    prune?: boolean;
    expectedRevision?: number;
    dryRun?: boolean;
  }): Promise<RestApplyResult>;
  /** One new revision whose table equals the one at `revision`. */
  rollbackRoutes(request: { revision: number; expectedRevision?: number; dryRun?: boolean }): Promise<RestApplyResult>;
  listRouteChanges(query?: { sinceRevision?: number; pageSize?: number; pageToken?: string }): Promise<RestRouteChangePage>;
  /** `filename` (default: a `File`'s own name, else none) becomes the asset's name. */
  uploadAsset(file: RestUploadSource, options?: { label?: string; filename?: string; visibility?: Visibility }): Promise<RestAsset>;
  /** A `filename` (default: a `File`'s own name) renames the asset; without one it keeps its name. */
  replaceAsset(id: string, file: RestUploadSource, options?: { filename?: string; visibility?: Visibility }): Promise<RestAsset>;
  getAsset(id: string): Promise<RestAsset>;
  /** An asset's kept changes, newest first (a deleted asset's too); follow them live with `watchAssets`. */
  listAssetChanges(id: string, query?: { pageSize?: number; pageToken?: string }): Promise<RestAssetChangePage>;
  /** `q`: names starting with it, ignoring case; combines with `type` and `label`. */
  listAssets(query?: { pageSize?: number; pageToken?: string; type?: string; label?: string; q?: string }): Promise<RestAssetPage>;
  /** `name`: more than 255 characters is a 400 `invalid_argument`; `""` clears it. */
  updateAsset(id: string, changes: { label?: string; name?: string; visibility?: Visibility }): Promise<RestAsset>;
  /** To the trash; `purge` (scope workspace:admin) skips it: the asset, its versions and their bytes go at once. */
  deleteAsset(id: string, options?: { purge?: boolean }): Promise<void>;
  /** The files replaces kept, newest first. */
  listAssetVersions(id: string): Promise<{ readonly versions: readonly RestAssetVersion[] }>;
  /** A version's bytes, as the gateway's `Response` (its body a stream). */
  getAssetVersionContent(id: string, versionId: string): Promise<Response>;
  /** Makes a version current again, as a replace. */
  restoreAssetVersion(id: string, versionId: string): Promise<RestAsset>;
  listTrash(query?: { pageSize?: number; pageToken?: string }): Promise<RestTrashPage>;
  /** Back from the trash with its id, name, label, visibility and versions; old signed urls stay refused. */
  restoreAsset(id: string): Promise<RestAsset>;
  /** Purges a trashed asset for good. */
  purgeAsset(id: string): Promise<void>;
  batchDeleteAssets(
    ids: readonly string[],
  ): Promise<{ readonly results: readonly { readonly id: string; readonly code: 'ok' | 'not_found' | 'invalid_argument' }[] }>;
  /** `transform` (w, h, fit, format, q, or a video's poster `frame` in ms) is signed into the url. */
  createSignedUrl(
    id: string,
    options: { expiresIn: number; transform?: { w?: number; h?: number; fit?: string; format?: string; q?: number; frame?: number } },
  ): Promise<RestSignedUrl>;
  revokeSignedUrls(id: string): Promise<void>;
  getWorkspacePolicy(): Promise<RestWorkspacePolicy>;
  setWorkspacePolicy(policy: {
    allowedTypes?: readonly string[];
    maxUploadBytes?: number;
    defaultVisibility?: Visibility;
    stripImageMetadata?: boolean;
    keepVersions?: number;
    retentionDays?: number;
  }): Promise<RestWorkspacePolicy>;
  getWorkspaceUsage(): Promise<RestWorkspaceUsage>;
  /** Who the client's own token or API key is; needs no scope. */
  getCaller(): Promise<RestCaller>;
  createKey(key: { name: string; scopes: readonly string[]; expiresAt: string }): Promise<RestKey & { readonly secret: string }>;
  listKeys(query?: {
    pageSize?: number;
    pageToken?: string;
  }): Promise<{ readonly keys: readonly RestKey[]; readonly nextPageToken: string }>;
  revokeKey(id: string): Promise<void>;
  /** A new secret; the old one works for `graceSeconds` more. */
  rollKey(id: string, graceSeconds: number): Promise<RestKey & { readonly secret: string }>;
  /** A webhook endpoint; the answer holds its secret, this once. */
  createWebhook(webhook: {
    url: string;
    events: readonly string[];
    description?: string;
  }): Promise<RestWebhook & { readonly secret: string }>;
  listWebhooks(): Promise<{ readonly webhooks: readonly RestWebhook[] }>;
  getWebhook(id: string): Promise<RestWebhook>;
  updateWebhook(
    id: string,
    changes: { url?: string; events?: readonly string[]; description?: string; enabled?: boolean },
  ): Promise<RestWebhook>;
  deleteWebhook(id: string): Promise<void>;
  /** A new secret; the old one signs beside it for 24 h. */
  rotateWebhookSecret(id: string): Promise<{ readonly secret: string }>;
  /** Queues a `webhook.test` delivery. */
  testWebhook(id: string): Promise<RestDelivery>;
  listDeliveries(
    id: string,
    query?: { status?: 'pending' | 'succeeded' | 'failed'; pageSize?: number; pageToken?: string },
  ): Promise<{ readonly deliveries: readonly RestDelivery[]; readonly nextPageToken: string }>;
  resendDelivery(id: string, deliveryId: string): Promise<void>;
  /** Queues again every failed delivery since `since` (RFC 3339). */
  recoverDeliveries(id: string, since: string): Promise<{ readonly queued: number }>;
}

export function createRestClient(options: RestClientOptions): RestClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const fetchFn = options.fetch ?? fetch;

  async function send(method: string, path: string, body?: BodyInit, contentType?: string): Promise<Response> {
    const headers = new Headers();
    if (contentType) headers.set('content-type', contentType);
    if (options.token !== undefined)
      headers.set('authorization', `Bearer ${typeof options.token === 'string' ? options.token : await options.token()}`);
    const response = await fetchFn(`${base}${path}`, { method, headers, body: body ?? null });
    if (!response.ok) throw await restError(response);
    return response;
  }

  async function call<T>(method: string, path: string, body?: BodyInit, contentType?: string): Promise<T> {
    const response = await send(method, path, body, contentType);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  const json = (value: unknown) => JSON.stringify(value);
  const form = (file: RestUploadSource, fields: Record<string, string | undefined>, filename?: string) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(fields)) if (value !== undefined) data.set(name, value);
    // An empty filename names no file (FormData would send a Blob as "blob"): the asset gets no name, a replace keeps its own.
    const blob = file instanceof Blob ? file : new Blob([new Uint8Array(file)]);
    data.set('file', blob, filename ?? webNameOf(blob) ?? '');
    return data;
  };
  const segment = encodeURIComponent;

  return Object.freeze({
    createRoute: (route) => call<RestRoute>('POST', '/v1/routing', json(route), 'application/json'),
    getRoute: (id) => call<RestRoute>('GET', `/v1/routing/${segment(id)}`),
    matchRoute: (method, path) => call<RestMatch>('GET', `/v1/routing:match?${new URLSearchParams({ method, path })}`),
    listRoutes: (query = {}) => call<RestRoutePage>('GET', `/v1/routing${queryOf(query)}`),
    updateRoute: (id, changes) => call<RestRoute>('PATCH', `/v1/routing/${segment(id)}`, json(changes), 'application/json'),
    deleteRoute: (id) => call<void>('DELETE', `/v1/routing/${segment(id)}`),
    applyRoutes: (request) => call<RestApplyResult>('POST', '/v1/routing:apply', json(request), 'application/json'),
    rollbackRoutes: (request) => call<RestApplyResult>('POST', '/v1/routing:rollback', json(request), 'application/json'),
    listRouteChanges: (query = {}) => call<RestRouteChangePage>('GET', `/v1/routing/changes${queryOf(query)}`),
    uploadAsset: (file, upload = {}) =>
      call<RestAsset>('POST', '/v1/assets/upload', form(file, { label: upload.label, visibility: upload.visibility }, upload.filename)),
    replaceAsset: (id, file, replace = {}) =>
      call<RestAsset>('POST', `/v1/assets/${segment(id)}/replace`, form(file, { visibility: replace.visibility }, replace.filename)),
    getAsset: (id) => call<RestAsset>('GET', `/v1/assets/${segment(id)}`),
    listAssetChanges: (id, query = {}) => call<RestAssetChangePage>('GET', `/v1/assets/${segment(id)}/history${queryOf(query)}`),
    listAssets: (query = {}) => call<RestAssetPage>('GET', `/v1/assets${queryOf(query)}`),
    updateAsset: (id, changes) => call<RestAsset>('PATCH', `/v1/assets/${segment(id)}`, json(changes), 'application/json'),
    deleteAsset: (id, remove = {}) => call<void>('DELETE', `/v1/assets/${segment(id)}${remove.purge ? '?purge=true' : ''}`),
    listAssetVersions: (id) => call('GET', `/v1/assets/${segment(id)}/versions`),
    getAssetVersionContent: (id, versionId) => send('GET', `/v1/assets/${segment(id)}/versions/${segment(versionId)}/content`),
    restoreAssetVersion: (id, versionId) => call<RestAsset>('POST', `/v1/assets/${segment(id)}/versions/${segment(versionId)}:restore`),
    listTrash: (query = {}) => call<RestTrashPage>('GET', `/v1/trash${queryOf(query)}`),
    restoreAsset: (id) => call<RestAsset>('POST', `/v1/trash/${segment(id)}:restore`),
    purgeAsset: (id) => call<void>('DELETE', `/v1/trash/${segment(id)}`),
    batchDeleteAssets: (ids) => call('POST', '/v1/assets:batchDelete', json({ ids }), 'application/json'),
    createSignedUrl: (id, signed) => call<RestSignedUrl>('POST', `/v1/assets/${segment(id)}/signed-url`, json(signed), 'application/json'),
    revokeSignedUrls: (id) => call<void>('DELETE', `/v1/assets/${segment(id)}/signed-urls`),
    getWorkspacePolicy: () => call<RestWorkspacePolicy>('GET', '/v1/workspace/policy'),
    setWorkspacePolicy: (policy) => call<RestWorkspacePolicy>('PUT', '/v1/workspace/policy', json(policy), 'application/json'),
    getWorkspaceUsage: () => call<RestWorkspaceUsage>('GET', '/v1/workspace/usage'),
    getCaller: () => call<RestCaller>('GET', '/v1/caller'),
    createKey: (key) => call('POST', '/v1/keys', json(key), 'application/json'),
    listKeys: (query = {}) => call('GET', `/v1/keys${queryOf(query)}`),
    revokeKey: (id) => call<void>('DELETE', `/v1/keys/${segment(id)}`),
    rollKey: (id, graceSeconds) => call('POST', `/v1/keys/${segment(id)}:roll`, json({ graceSeconds }), 'application/json'),
    createWebhook: (webhook) => call('POST', '/v1/webhooks', json(webhook), 'application/json'),
    listWebhooks: () => call('GET', '/v1/webhooks'),
    getWebhook: (id) => call<RestWebhook>('GET', `/v1/webhooks/${segment(id)}`),
    updateWebhook: (id, changes) => call<RestWebhook>('PATCH', `/v1/webhooks/${segment(id)}`, json(changes), 'application/json'),
    deleteWebhook: (id) => call<void>('DELETE', `/v1/webhooks/${segment(id)}`),
    rotateWebhookSecret: (id) => call('POST', `/v1/webhooks/${segment(id)}:rotateSecret`),
    testWebhook: (id) => call<RestDelivery>('POST', `/v1/webhooks/${segment(id)}:test`),
    listDeliveries: (id, query = {}) => call('GET', `/v1/webhooks/${segment(id)}/deliveries${queryOf(query)}`),
    resendDelivery: async (id, deliveryId) => {
      await call('POST', `/v1/webhooks/${segment(id)}/deliveries/${segment(deliveryId)}:resend`);
    },
    recoverDeliveries: (id, since) => call('POST', `/v1/webhooks/${segment(id)}:recover`, json({ since }), 'application/json'),
  } satisfies RestClient);
}

/** `?a=1&b=2` of the given parameters, or nothing. */
function queryOf(query: Readonly<Record<string, string | number | undefined>>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  return params.size > 0 ? `?${params}` : '';
}

async function restError(response: Response): Promise<SwitchyardRestError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; details?: unknown };
    if (typeof body.code === 'string' && typeof body.message === 'string') {
      return new SwitchyardRestError(
        response.status,
        body.code,
        body.message,
        Array.isArray(body.details) ? (body.details as RestErrorDetail[]) : [],
        requestId,
      );
    }
  } catch {
    // Not the gateway's JSON (a proxy's page, say): reported as it came.
  }
  return new SwitchyardRestError(response.status, 'unknown', `HTTP ${response.status}: ${text.slice(0, 200)}`, [], requestId);
}
