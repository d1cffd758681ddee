// Every operation of the service on every wire a client can reach it by, with
// the `Authorization` value(s) an attack chooses: REST (and HEAD of its GETs;
// the resumable uploads as the tus protocol at /v1/uploads),
// the Connect protocol (JSON, unary and client streaming) and gRPC-Web (binary)
// on the gateway, and gRPC on the service itself. Requests are written by hand
// (node:http, node:http2) so that duplicate and non-ASCII header values, which
// client libraries refuse to send, reach the servers as an attacker sends them.
import { create, fromBinary, isMessage, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { Agent, request } from 'node:http';
import { connect as http2Connect, type ClientHttp2Session, type IncomingHttpHeaders as Http2Headers } from 'node:http2';
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import {
  AppendUploadRequestSchema,
  AssetSchema,
  BatchDeleteAssetsRequestSchema,
  CreateUploadRequestSchema,
  GetUploadRequestSchema,
  TerminateUploadRequestSchema,
  CreateRouteRequestSchema,
  DeleteRouteRequestSchema,
  ListRoutesRequestSchema,
  UpdateRouteRequestSchema,
  WatchRoutesRequestSchema,
  ApplyRoutesRequestSchema,
  ListRouteChangesRequestSchema,
  RollbackRoutesRequestSchema,
  WatchAssetsRequestSchema,
  ListAssetChangesRequestSchema,
  CreateSignedUrlRequestSchema,
  DeleteAssetRequestSchema,
  ListAssetVersionsRequestSchema,
  ReadAssetVersionRequestSchema,
  RestoreAssetVersionRequestSchema,
  ListTrashRequestSchema,
  RestoreAssetRequestSchema,
  PurgeAssetRequestSchema,
  CreateWebhookRequestSchema,
  ListWebhooksRequestSchema,
  GetWebhookRequestSchema,
  UpdateWebhookRequestSchema,
  DeleteWebhookRequestSchema,
  RotateWebhookSecretRequestSchema,
  TestWebhookRequestSchema,
  ListDeliveriesRequestSchema,
  ResendDeliveryRequestSchema,
  RecoverDeliveriesRequestSchema,
  GetAssetRequestSchema,
  GetRouteRequestSchema,
  GetWorkspacePolicyRequestSchema,
  GetWorkspaceUsageRequestSchema,
  ListAssetsRequestSchema,
  MatchRouteRequestSchema,
  ReplaceAssetRequestSchema,
  RevokeSignedUrlsRequestSchema,
  SetWorkspacePolicyRequestSchema,
  UpdateAssetRequestSchema,
  UploadAssetRequestSchema,
  CreateKeyRequestSchema,
  ListKeysRequestSchema,
  GetKeyRequestSchema,
  RevokeKeyRequestSchema,
  RollKeyRequestSchema,
} from '@switchyard/proto';
import { timestampDate, timestampFromDate, TimestampSchema } from '@bufbuild/protobuf/wkt';
import { GrpcClients } from '../../grpc/support/clients.js';
import type { AuthValue } from './forged-tokens.js';

export type Transport = 'rest' | 'rest-head' | 'connect' | 'grpc-web' | 'grpc';
export const TRANSPORTS: readonly Transport[] = ['rest', 'rest-head', 'connect', 'grpc-web', 'grpc'];

export const SCOPE_OF = {
  CreateRoute: 'routes:write',
  GetRoute: 'routes:read',
  MatchRoute: 'routes:read',
  ListRoutes: 'routes:read',
  UpdateRoute: 'routes:write',
  DeleteRoute: 'routes:write',
  WatchRoutes: 'routes:read',
  ApplyRoutes: 'routes:write',
  ListRouteChanges: 'routes:read',
  RollbackRoutes: 'routes:write',
  UploadAsset: 'assets:write',
  ReplaceAsset: 'assets:write',
  GetAsset: 'assets:read',
  ListAssets: 'assets:read',
  UpdateAsset: 'assets:write',
  DeleteAsset: 'assets:write',
  BatchDeleteAssets: 'assets:write',
  CreateSignedUrl: 'assets:read',
  RevokeSignedUrls: 'assets:write',
  GetWorkspaceUsage: 'assets:read',
  GetWorkspacePolicy: 'workspace:admin',
  SetWorkspacePolicy: 'workspace:admin',
  WatchAssets: 'assets:read',
  ListAssetChanges: 'assets:read',
  CreateUpload: 'assets:write',
  AppendUpload: 'assets:write',
  GetUpload: 'assets:write',
  TerminateUpload: 'assets:write',
  CreateKey: 'workspace:admin',
  ListKeys: 'workspace:admin',
  GetKey: 'workspace:admin',
  RevokeKey: 'workspace:admin',
  RollKey: 'workspace:admin',
  ListAssetVersions: 'assets:read',
  ReadAssetVersion: 'assets:read',
  RestoreAssetVersion: 'assets:write',
  ListTrash: 'assets:read',
  RestoreAsset: 'assets:write',
  PurgeAsset: 'assets:write',
  // DeleteAsset with `purge` (REST `?purge=true`): skipping the trash is for workspace:admin alone.
  DeleteAssetPurge: 'workspace:admin',
  // Webhooks (issue 42): every call is the workspace admin's.
  CreateWebhook: 'workspace:admin',
  ListWebhooks: 'workspace:admin',
  GetWebhook: 'workspace:admin',
  UpdateWebhook: 'workspace:admin',
  DeleteWebhook: 'workspace:admin',
  RotateWebhookSecret: 'workspace:admin',
  TestWebhook: 'workspace:admin',
  ListDeliveries: 'workspace:admin',
  ResendDelivery: 'workspace:admin',
  RecoverDeliveries: 'workspace:admin',
} as const;
export type Operation = keyof typeof SCOPE_OF;
const OPERATIONS = Object.keys(SCOPE_OF) as Operation[];

/**
 * Operations on the caller's own workspace as a whole (no record id): a
 * stranger's token makes them succeed there, never reach the owner's records.
 * A batch delete answers `not_found` per foreign id inside a successful call.
 */
export const WORKSPACE_WIDE: ReadonlySet<Operation> = new Set([
  'CreateRoute',
  'ListRoutes',
  'WatchRoutes',
  'ApplyRoutes',
  'ListRouteChanges',
  'RollbackRoutes',
  'WatchAssets',
  'UploadAsset',
  'ListAssets',
  'GetWorkspaceUsage',
  'GetWorkspacePolicy',
  'SetWorkspacePolicy',
  'BatchDeleteAssets',
  'CreateUpload',
  'CreateKey',
  'ListKeys',
  'ListTrash',
  'CreateWebhook',
  'ListWebhooks',
]);

/** Operations that consume the record they succeed on, and which spares they take: each success moves on to the next. */
const CONSUMING: ReadonlyMap<Operation, (targets: Targets) => string[]> = new Map([
  ['DeleteAsset', (targets: Targets) => targets.spares],
  ['BatchDeleteAssets', (targets: Targets) => targets.spares],
  ['DeleteRoute', (targets: Targets) => targets.spareRoutes],
  ['TerminateUpload', (targets: Targets) => targets.spareUploads],
  // An append that succeeds moves its upload's offset on: the next one aims at another upload still at 0.
  ['AppendUpload', (targets: Targets) => targets.freshUploads],
  // A revoked key cannot be rolled, nor revoked to any effect again: each successful revoke takes another.
  ['RevokeKey', (targets: Targets) => targets.spareKeys],
  ['DeleteAssetPurge', (targets: Targets) => targets.spares],
  // A restored version is current, no longer a version; a restored or purged asset is out of the trash.
  ['RestoreAssetVersion', (targets: Targets) => targets.spareVersions],
  ['RestoreAsset', (targets: Targets) => targets.trashed],
  ['PurgeAsset', (targets: Targets) => targets.trashed],
  ['DeleteWebhook', (targets: Targets) => targets.spareWebhooks],
]);

/** Operations whose answer is a stream (a watch, which does not end by itself; a version's bytes): the first message decides. */
const STREAMING_ANSWER: ReadonlySet<Operation> = new Set(['WatchRoutes', 'WatchAssets', 'ReadAssetVersion']);

/**
 * What the records an operation is aimed at: a route, a path it matches, an
 * asset, a resumable upload, and spares for the calls that use theirs up.
 */
export interface Targets {
  readonly routeId: string;
  readonly matchPath: string;
  readonly assetId: string;
  /** Assets of the owner that a successful delete may take, first one first. */
  readonly spares: string[];
  /** Routes of the owner that a successful DeleteRoute may take. */
  readonly spareRoutes: string[];
  /** An unfinished resumable upload of the owner (GetUpload). */
  readonly uploadId: string;
  /** Unfinished uploads of the owner that a successful TerminateUpload may take. */
  readonly spareUploads: string[];
  /** Uploads of the owner at offset 0 (with room for ATTACK_BYTES): each successful append moves one on. */
  readonly freshUploads: string[];
  /** An API key of the owner (GetKey, RollKey: a successful roll gives it a new secret nobody uses). */
  readonly keyId: string;
  /** API keys of the owner that a successful RevokeKey may take. */
  readonly spareKeys: string[];
  /** An asset of the owner with a version (`versionId`) that no call restores (ListAssetVersions, ReadAssetVersion). */
  readonly versionedAssetId: string;
  readonly versionId: string;
  /** `assetId/versionId` pairs of the owner's versions that a successful RestoreAssetVersion may take. */
  readonly spareVersions: string[];
  /** Assets in the owner's trash that a successful RestoreAsset or PurgeAsset may take. */
  readonly trashed: string[];
  /** A webhook endpoint of the owner (a successful rotate gives it a secret nobody uses; a test or resend queues a delivery). */
  readonly webhookId: string;
  /** A delivery of `webhookId` that ResendDelivery queues again. */
  readonly deliveryId: string;
  /** Webhook endpoints of the owner that a successful DeleteWebhook may take. */
  readonly spareWebhooks: string[];
}

const NO_UPLOAD = 'up_00000000000000000000000000';
const spareOf = (targets: Targets): string => targets.spares[0] ?? 'as_00000000000000000000000000';
const spareRouteOf = (targets: Targets): string => targets.spareRoutes[0] ?? 'rt_00000000000000000000000000';
const spareUploadOf = (targets: Targets): string => targets.spareUploads[0] ?? NO_UPLOAD;
const freshUploadOf = (targets: Targets): string => targets.freshUploads[0] ?? NO_UPLOAD;
const NO_KEY = 'key_00000000000000000000000000';
const spareKeyOf = (targets: Targets): string => targets.spareKeys[0] ?? NO_KEY;
const NO_VERSION = 'ver_00000000000000000000000000';
/** The next spare version as `{ id, versionId }`. */
const spareVersionOf = (targets: Targets): { id: string; versionId: string } => {
  const [id, versionId] = (targets.spareVersions[0] ?? `as_00000000000000000000000000/${NO_VERSION}`).split('/');
  return { id: id!, versionId: versionId! };
};
const trashedOf = (targets: Targets): string => targets.trashed[0] ?? 'as_00000000000000000000000000';
const NO_WEBHOOK = 'wh_00000000000000000000000000';
const spareWebhookOf = (targets: Targets): string => targets.spareWebhooks[0] ?? NO_WEBHOOK;
/**
 * What a successful CreateWebhook asks for: an endpoint on a loopback port
 * nothing listens on (tests name no other address), for an event no test makes.
 */
export const ATTACK_WEBHOOK = Object.freeze({ url: 'http://127.0.0.1:9/attack', events: ['route.deleted'], description: 'attack' });
/** RecoverDeliveries' `since`: an hour ago. */
const anHourAgo = () => new Date(Date.now() - 3_600_000);
/** What a successful CreateKey asks for: a key of the caller's own workspace, for an hour, with the one scope every caller of CreateKey holds. */
const ATTACK_KEY = Object.freeze({ name: 'attack', scopes: ['workspace:admin'] });
const inAnHour = () => new Date(Date.now() + 3_600_000);

/** Targets that name records nobody has: for calls whose authentication is all that matters. */
export const NOWHERE: Targets = Object.freeze({
  routeId: 'rt_00000000000000000000000000',
  matchPath: '/nothing',
  assetId: 'as_00000000000000000000000000',
  spares: [],
  spareRoutes: [],
  uploadId: NO_UPLOAD,
  spareUploads: [],
  freshUploads: [],
  keyId: NO_KEY,
  spareKeys: [],
  versionedAssetId: 'as_00000000000000000000000000',
  versionId: NO_VERSION,
  spareVersions: [],
  trashed: [],
  webhookId: NO_WEBHOOK,
  deliveryId: 'dlv_00000000000000000000000000',
  spareWebhooks: [],
});

/** A call's outcome in the contract's terms: `ok` or a Connect code name, with the HTTP status and body where there was one. */
export interface Outcome {
  readonly code: string;
  readonly status?: number;
  readonly message: string;
  /** Everything the caller got back, to check that nothing echoes the token. */
  readonly raw: string;
  /** What breaks the contract's error shape, if anything. */
  readonly shapeProblem?: string;
  /** REST: the `WWW-Authenticate` header, if any. */
  readonly challenge?: string;
  /** The parsed success body (REST JSON, or the decoded message). */
  readonly value?: Record<string, unknown>;
}

export interface Extra {
  /** Appended to the request path (REST and Connect), e.g. `access_token=…`. */
  readonly query?: string;
  readonly headers?: Record<string, string>;
}

export interface Surface {
  readonly transport: Transport;
  readonly operation: Operation;
  readonly name: string;
  call(authorization: AuthValue, targets: Targets, extra?: Extra): Promise<Outcome>;
}

/** The status per code of docs/rest.md and docs/errors.md, written out here rather than imported from the gateway. */
const STATUS_OF: Readonly<Record<string, number>> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
  resource_exhausted: 429,
  unavailable: 503,
  internal: 500,
};
const CODE_OF_STATUS = Object.fromEntries(Object.entries(STATUS_OF).map(([code, status]) => [status, code]));

/** gRPC status numbers to the Connect code names the contract uses. */
const GRPC_CODE_NAME: Readonly<Record<number, string>> = {
  0: 'ok',
  1: 'canceled',
  2: 'unknown',
  3: 'invalid_argument',
  4: 'deadline_exceeded',
  5: 'not_found',
  6: 'already_exists',
  7: 'permission_denied',
  8: 'resource_exhausted',
  9: 'failed_precondition',
  10: 'aborted',
  11: 'out_of_range',
  12: 'unimplemented',
  13: 'internal',
  14: 'unavailable',
  15: 'data_loss',
  16: 'unauthenticated',
};

interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

function httpCall(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string | readonly string[]>,
  body?: Buffer,
  retried = false,
): Promise<HttpAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers: headers as Record<string, string | string[]>, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed as it was reused (node's documented race): send once more on a fresh one.
      if (req.reusedSocket && error.code === 'ECONNRESET' && !retried)
        return void httpCall(base, method, path, headers, body, true).then(resolve, reject);
      setImmediate(() => reject(error));
    });
    req.end(body);
  });
}

/**
 * Like httpCall, for answers that may be endless streams: an error status is
 * read whole; a 200 is read only until its first bytes (or `firstEnvelope`:
 * its first complete envelope), then the request is dropped.
 */
function httpFirst(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string | readonly string[]>,
  body?: Buffer,
  firstEnvelope = false,
): Promise<HttpAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers: headers as Record<string, string | string[]> }, (res) => {
      const chunks: Buffer[] = [];
      const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (res.statusCode !== 200) return;
        const all = Buffer.concat(chunks);
        if (!firstEnvelope || (all.length >= 5 && all.length >= 5 + all.readUInt32BE(1))) {
          done();
          req.destroy();
        }
      });
      res.on('end', done);
      res.on('error', () => done());
    });
    req.on('error', (error) => setImmediate(() => reject(error)));
    req.end(body);
  });
}

function withAuth(
  headers: Record<string, string | readonly string[]>,
  authorization: AuthValue,
  extra?: Extra,
): Record<string, string | readonly string[]> {
  const all: Record<string, string | readonly string[]> = { ...headers, ...extra?.headers };
  if (authorization !== undefined) all['authorization'] = authorization;
  return all;
}

const withQuery = (path: string, extra?: Extra) => (extra?.query ? `${path}${path.includes('?') ? '&' : '?'}${extra.query}` : path);

/** An error body must be `{code, message, details[]}` with the status of its code. */
function restOutcome(answer: HttpAnswer, head: boolean, connect = false): Outcome {
  const outcome = restOutcomeOf(answer, head, connect);
  const challenge = answer.headers['www-authenticate'];
  return challenge === undefined ? outcome : { ...outcome, challenge: String(challenge) };
}

/** Connect's own error bodies (the protocol's, on its paths) may leave out `details` when there are none. */
function restOutcomeOf(answer: HttpAnswer, head: boolean, connect: boolean): Outcome {
  const raw = `${JSON.stringify(answer.headers)} ${answer.body.toString('latin1')}`;
  if (answer.status < 300) {
    const value = head || answer.body.length === 0 ? undefined : (JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>);
    return { code: 'ok', status: answer.status, message: '', raw, ...(value ? { value } : {}) };
  }
  if (head) return { code: CODE_OF_STATUS[answer.status] ?? `status ${answer.status}`, status: answer.status, message: '', raw };
  let body: { code?: unknown; message?: unknown; details?: unknown };
  try {
    body = JSON.parse(answer.body.toString('utf8')) as typeof body;
  } catch {
    return { code: `status ${answer.status}`, status: answer.status, message: '', raw, shapeProblem: 'error body is not JSON' };
  }
  const problems: string[] = [];
  if (!/^application\/json/.test(String(answer.headers['content-type'])))
    problems.push(`content-type ${String(answer.headers['content-type'])}`);
  const details = connect && body.details === undefined ? [] : body.details;
  if (typeof body.code !== 'string' || typeof body.message !== 'string' || !Array.isArray(details))
    problems.push('not {code, message, details[]}');
  if (typeof body.code === 'string' && STATUS_OF[body.code] !== undefined && STATUS_OF[body.code] !== answer.status)
    problems.push(`${body.code} with status ${answer.status}`);
  const code = typeof body.code === 'string' ? body.code : `status ${answer.status}`;
  return {
    code,
    status: answer.status,
    message: String(body.message),
    raw,
    ...(problems.length ? { shapeProblem: problems.join('; ') } : {}),
  };
}

function multipart(fields: Record<string, string>, file: { name: string; bytes: Buffer }): { body: Buffer; type: string } {
  const boundary = `----auth-attack-${Math.random().toString(36).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(
    Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${file.name}"\r\ncontent-type: text/plain\r\n\r\n`,
    ),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

let serial = 0;
/** A route path no other call creates. */
export const freshPath = () => `/attack/${Date.now().toString(36)}-${(serial += 1)}`;
/** An apply an attack sends: an empty table of an owner of its own, so a success changes nothing of the owner's. */
const ATTACK_APPLY = { owner: 'attack', routes: [] };

/** The bytes an attack would write over an asset; a test checks they never land. */
export const ATTACK_BYTES = Buffer.from('bytes an attacker tried to store');

function restSurfaces(gatewayUrl: string): Surface[] {
  const json = { 'content-type': 'application/json' };
  const sendJson = (
    operation: Operation,
    method: string,
    name: string,
    path: (t: Targets) => string,
    body?: (t: Targets) => unknown,
  ): Surface => ({
    transport: 'rest',
    operation,
    name: `${method} ${name}`,
    call: async (authorization, targets, extra) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body(targets)));
      const headers = payload === undefined ? {} : { ...json, 'content-length': String(payload.length) };
      return restOutcome(
        await httpCall(gatewayUrl, method, withQuery(path(targets), extra), withAuth(headers, authorization, extra), payload),
        false,
      );
    },
  });
  const get = (operation: Operation, path: (t: Targets) => string): Surface[] =>
    (['GET', 'HEAD'] as const).map((method) => ({
      transport: method === 'GET' ? 'rest' : 'rest-head',
      operation,
      name: `${method} ${path({ ...NOWHERE, routeId: '{id}', assetId: '{id}', matchPath: '{path}' })}`,
      call: async (authorization, targets, extra) =>
        restOutcome(
          await httpCall(gatewayUrl, method, withQuery(path(targets), extra), withAuth({}, authorization, extra)),
          method === 'HEAD',
        ),
    }));
  const post = (operation: Operation, name: string, path: (t: Targets) => string, body: () => { body: Buffer; type: string }): Surface => ({
    transport: 'rest',
    operation,
    name: `POST ${name}`,
    call: async (authorization, targets, extra) => {
      const payload = body();
      const answer = await httpCall(
        gatewayUrl,
        'POST',
        withQuery(path(targets), extra),
        withAuth({ 'content-type': payload.type, 'content-length': String(payload.body.length) }, authorization, extra),
        payload.body,
      );
      return restOutcome(answer, false);
    },
  });
  return [
    post(
      'CreateRoute',
      '/v1/routing',
      () => '/v1/routing',
      () => ({ body: Buffer.from(JSON.stringify({ method: 'GET', path: freshPath(), handler: 'attack' })), type: json['content-type'] }),
    ),
    ...get('GetRoute', (t) => `/v1/routing/${t.routeId}`),
    ...get('MatchRoute', (t) => `/v1/routing:match?method=GET&path=${encodeURIComponent(t.matchPath)}`),
    post(
      'UploadAsset',
      '/v1/assets/upload',
      () => '/v1/assets/upload',
      () => multipart({ label: 'attack' }, { name: 'attack.txt', bytes: ATTACK_BYTES }),
    ),
    ...get('GetAsset', (t) => `/v1/assets/${t.assetId}`),
    post(
      'ReplaceAsset',
      '/v1/assets/{id}/replace',
      (t) => `/v1/assets/${t.assetId}/replace`,
      () => multipart({}, { name: 'attack.txt', bytes: ATTACK_BYTES }),
    ),
    ...get('ListRoutes', () => '/v1/routing?pageSize=10'),
    sendJson(
      'UpdateRoute',
      'PATCH',
      '/v1/routing/{id}',
      (t) => `/v1/routing/${t.routeId}`,
      () => ({ handler: 'owner' }),
    ),
    sendJson('DeleteRoute', 'DELETE', '/v1/routing/{id}', (t) => `/v1/routing/${spareRouteOf(t)}`),
    // Routes as code on the caller's own workspace: an apply of another owner's empty table, a dry-run rollback, the log.
    sendJson(
      'ApplyRoutes',
      'POST',
      '/v1/routing:apply',
      () => '/v1/routing:apply',
      () => ATTACK_APPLY,
    ),
    ...get('ListRouteChanges', () => '/v1/routing/changes?pageSize=10'),
    sendJson(
      'RollbackRoutes',
      'POST',
      '/v1/routing:rollback',
      () => '/v1/routing:rollback',
      () => ({ revision: 0, dryRun: true }),
    ),
    {
      transport: 'rest',
      operation: 'WatchRoutes',
      name: 'GET /v1/routing:watch',
      call: async (authorization, _targets, extra) => {
        const answer = await httpFirst(gatewayUrl, 'GET', withQuery('/v1/routing:watch', extra), withAuth({}, authorization, extra));
        // An event stream, not JSON: its start is the success.
        if (answer.status === 200)
          return { code: 'ok', status: 200, message: '', raw: `${JSON.stringify(answer.headers)} ${answer.body.toString('latin1')}` };
        return restOutcome(answer, false);
      },
    },
    {
      transport: 'rest',
      operation: 'WatchAssets',
      name: 'GET /v1/assets:watch',
      call: async (authorization, _targets, extra) => {
        const answer = await httpFirst(gatewayUrl, 'GET', withQuery('/v1/assets:watch', extra), withAuth({}, authorization, extra));
        // An event stream, not JSON: its start is the success.
        if (answer.status === 200)
          return { code: 'ok', status: 200, message: '', raw: `${JSON.stringify(answer.headers)} ${answer.body.toString('latin1')}` };
        return restOutcome(answer, false);
      },
    },
    ...get('ListAssetChanges', (t) => `/v1/assets/${t.assetId}/history`),
    ...get('ListAssets', () => '/v1/assets?pageSize=10&type=text/*'),
    sendJson(
      'UpdateAsset',
      'PATCH',
      '/v1/assets/{id}',
      (t) => `/v1/assets/${t.assetId}`,
      () => ({ label: 'owner' }),
    ),
    sendJson('DeleteAsset', 'DELETE', '/v1/assets/{id}', (t) => `/v1/assets/${spareOf(t)}`),
    sendJson(
      'BatchDeleteAssets',
      'POST',
      '/v1/assets:batchDelete',
      () => '/v1/assets:batchDelete',
      (t) => ({ ids: [spareOf(t)] }),
    ),
    sendJson(
      'CreateSignedUrl',
      'POST',
      '/v1/assets/{id}/signed-url',
      (t) => `/v1/assets/${t.assetId}/signed-url`,
      () => ({ expiresIn: 60 }),
    ),
    sendJson('RevokeSignedUrls', 'DELETE', '/v1/assets/{id}/signed-urls', (t) => `/v1/assets/${t.assetId}/signed-urls`),
    ...get('GetWorkspaceUsage', () => '/v1/workspace/usage'),
    ...get('GetWorkspacePolicy', () => '/v1/workspace/policy'),
    sendJson(
      'SetWorkspacePolicy',
      'PUT',
      '/v1/workspace/policy',
      () => '/v1/workspace/policy',
      () => ({}),
    ),
    sendJson(
      'CreateKey',
      'POST',
      '/v1/keys',
      () => '/v1/keys',
      () => ({ ...ATTACK_KEY, expiresAt: inAnHour().toISOString() }),
    ),
    ...get('ListKeys', () => '/v1/keys?pageSize=10'),
    ...get('GetKey', (t) => `/v1/keys/${t.keyId}`),
    sendJson('RevokeKey', 'DELETE', '/v1/keys/{id}', (t) => `/v1/keys/${spareKeyOf(t)}`),
    sendJson(
      'RollKey',
      'POST',
      '/v1/keys/{id}:roll',
      (t) => `/v1/keys/${t.keyId}:roll`,
      () => ({ graceSeconds: 0 }),
    ),
    // Versions and trash (issue 43).
    ...get('ListAssetVersions', (t) => `/v1/assets/${t.versionedAssetId}/versions`),
    {
      // The bytes, not JSON (and no HEAD: the route has none).
      transport: 'rest',
      operation: 'ReadAssetVersion',
      name: 'GET /v1/assets/{id}/versions/{versionId}/content',
      call: async (authorization, targets, extra) => {
        const path = `/v1/assets/${targets.versionedAssetId}/versions/${targets.versionId}/content`;
        const answer = await httpCall(gatewayUrl, 'GET', withQuery(path, extra), withAuth({}, authorization, extra));
        if (answer.status === 200)
          return { code: 'ok', status: 200, message: '', raw: `${JSON.stringify(answer.headers)} ${answer.body.toString('latin1')}` };
        return restOutcome(answer, false);
      },
    },
    sendJson('RestoreAssetVersion', 'POST', '/v1/assets/{id}/versions/{versionId}:restore', (t) => {
      const { id, versionId } = spareVersionOf(t);
      return `/v1/assets/${id}/versions/${versionId}:restore`;
    }),
    ...get('ListTrash', () => '/v1/trash?pageSize=10'),
    sendJson('RestoreAsset', 'POST', '/v1/trash/{id}:restore', (t) => `/v1/trash/${trashedOf(t)}:restore`),
    sendJson('PurgeAsset', 'DELETE', '/v1/trash/{id}', (t) => `/v1/trash/${trashedOf(t)}`),
    sendJson('DeleteAssetPurge', 'DELETE', '/v1/assets/{id}?purge=true', (t) => `/v1/assets/${spareOf(t)}?purge=true`),
    // Webhooks (issue 42).
    sendJson(
      'CreateWebhook',
      'POST',
      '/v1/webhooks',
      () => '/v1/webhooks',
      () => ATTACK_WEBHOOK,
    ),
    ...get('ListWebhooks', () => '/v1/webhooks'),
    ...get('GetWebhook', (t) => `/v1/webhooks/${t.webhookId}`),
    sendJson(
      'UpdateWebhook',
      'PATCH',
      '/v1/webhooks/{id}',
      (t) => `/v1/webhooks/${t.webhookId}`,
      () => ({ description: 'owner' }),
    ),
    sendJson('DeleteWebhook', 'DELETE', '/v1/webhooks/{id}', (t) => `/v1/webhooks/${spareWebhookOf(t)}`),
    sendJson('RotateWebhookSecret', 'POST', '/v1/webhooks/{id}:rotateSecret', (t) => `/v1/webhooks/${t.webhookId}:rotateSecret`),
    sendJson('TestWebhook', 'POST', '/v1/webhooks/{id}:test', (t) => `/v1/webhooks/${t.webhookId}:test`),
    ...get('ListDeliveries', (t) => `/v1/webhooks/${t.webhookId}/deliveries?pageSize=10`),
    sendJson(
      'ResendDelivery',
      'POST',
      '/v1/webhooks/{id}/deliveries/{deliveryId}:resend',
      (t) => `/v1/webhooks/${t.webhookId}/deliveries/${t.deliveryId}:resend`,
    ),
    sendJson(
      'RecoverDeliveries',
      'POST',
      '/v1/webhooks/{id}:recover',
      (t) => `/v1/webhooks/${t.webhookId}:recover`,
      () => ({ since: anHourAgo().toISOString() }),
    ),
    ...tusSurfaces(gatewayUrl),
  ];
}

/** The tus protocol's version header, which every tus request but OPTIONS carries. */
export const TUS_RESUMABLE = { 'tus-resumable': '1.0.0' } as const;
const OFFSET_OCTET_STREAM = 'application/offset+octet-stream';
const tusMetadata = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');

/**
 * The resumable uploads as tus at /v1/uploads: creation (with the attack's
 * bytes riding on it), PATCH, HEAD (answers without a body, like the other
 * HEADs) and DELETE. OPTIONS needs no token by design (a CORS preflight cannot
 * carry one) and so is no surface here.
 */
function tusSurfaces(gatewayUrl: string): Surface[] {
  const tus = (
    operation: Operation,
    method: 'POST' | 'PATCH' | 'HEAD' | 'DELETE',
    name: string,
    path: (t: Targets) => string,
    headers: Record<string, string>,
    body?: Buffer,
  ): Surface => ({
    transport: method === 'HEAD' ? 'rest-head' : 'rest',
    operation,
    name: `${method} ${name}`,
    call: async (authorization, targets, extra) => {
      const all = { ...TUS_RESUMABLE, ...headers, ...(body ? { 'content-length': String(body.length) } : {}) };
      return restOutcome(
        await httpCall(gatewayUrl, method, withQuery(path(targets), extra), withAuth(all, authorization, extra), body),
        method === 'HEAD',
      );
    },
  });
  return [
    tus(
      'CreateUpload',
      'POST',
      '/v1/uploads',
      () => '/v1/uploads',
      {
        'upload-length': String(ATTACK_BYTES.length),
        'upload-metadata': tusMetadata({ filename: 'attack.txt', label: 'attack' }),
        'content-type': OFFSET_OCTET_STREAM,
      },
      ATTACK_BYTES,
    ),
    tus(
      'AppendUpload',
      'PATCH',
      '/v1/uploads/{id}',
      (t) => `/v1/uploads/${freshUploadOf(t)}`,
      { 'upload-offset': '0', 'content-type': OFFSET_OCTET_STREAM },
      ATTACK_BYTES,
    ),
    tus('GetUpload', 'HEAD', '/v1/uploads/{id}', (t) => `/v1/uploads/${t.uploadId}`, {}),
    tus('TerminateUpload', 'DELETE', '/v1/uploads/{id}', (t) => `/v1/uploads/${spareUploadOf(t)}`, {}),
  ];
}

/** A tus upload's state as a HEAD with `authorization` tells it: the status, and the offset and length when found. */
export async function tusState(
  gatewayUrl: string,
  authorization: string,
  id: string,
): Promise<{ status: number; offset?: number; length?: number }> {
  const answer = await httpCall(gatewayUrl, 'HEAD', `/v1/uploads/${id}`, { ...TUS_RESUMABLE, authorization });
  const header = (name: string) =>
    answer.headers[name] === undefined ? {} : { [name.slice('upload-'.length)]: Number(answer.headers[name]) };
  return { status: answer.status, ...header('upload-offset'), ...header('upload-length') };
}

/** Creates a tus upload of `length` bytes with `authorization`, its `first` bytes sent with the creation; its id. */
export async function createTusUpload(gatewayUrl: string, authorization: string, length: number, first?: Buffer): Promise<string> {
  const headers = {
    ...TUS_RESUMABLE,
    authorization,
    'upload-length': String(length),
    'content-length': String(first?.length ?? 0),
    ...(first ? { 'content-type': OFFSET_OCTET_STREAM } : {}),
  };
  const answer = await httpCall(gatewayUrl, 'POST', '/v1/uploads', headers, first);
  const location = answer.headers['location'];
  if (answer.status !== 201 || typeof location !== 'string')
    throw new Error(`creating an upload: ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`);
  return location.slice(location.lastIndexOf('/') + 1);
}

/** The request messages of each operation, as protobuf init shapes. */
function messagesOf(
  operation: Operation,
  targets: Targets,
): { schema: DescMessage; messages: MessageInitShape<DescMessage>[]; streaming: boolean; path: string } {
  switch (operation) {
    case 'CreateRoute':
      return {
        schema: CreateRouteRequestSchema,
        messages: [{ method: 'GET', path: freshPath(), handler: 'attack', middleware: [] }],
        streaming: false,
        path: '/switchyard.v1.RouteService/CreateRoute',
      };
    case 'GetRoute':
      return {
        schema: GetRouteRequestSchema,
        messages: [{ id: targets.routeId }],
        streaming: false,
        path: '/switchyard.v1.RouteService/GetRoute',
      };
    case 'MatchRoute':
      return {
        schema: MatchRouteRequestSchema,
        messages: [{ method: 'GET', path: targets.matchPath }],
        streaming: false,
        path: '/switchyard.v1.RouteService/MatchRoute',
      };
    case 'GetAsset':
      return {
        schema: GetAssetRequestSchema,
        messages: [{ id: targets.assetId }],
        streaming: false,
        path: '/switchyard.v1.AssetService/GetAsset',
      };
    case 'UploadAsset':
      return {
        schema: UploadAssetRequestSchema,
        messages: [
          { payload: { case: 'metadata', value: { label: 'attack', filename: 'attack.txt', declaredType: '' } } },
          { payload: { case: 'chunk', value: ATTACK_BYTES } },
        ],
        streaming: true,
        path: '/switchyard.v1.AssetService/UploadAsset',
      };
    case 'ReplaceAsset':
      return {
        schema: ReplaceAssetRequestSchema,
        messages: [
          { payload: { case: 'metadata', value: { id: targets.assetId, filename: 'attack.txt', declaredType: '' } } },
          { payload: { case: 'chunk', value: ATTACK_BYTES } },
        ],
        streaming: true,
        path: '/switchyard.v1.AssetService/ReplaceAsset',
      };
    case 'ListRoutes':
      return unaryCall('RouteService', operation, ListRoutesRequestSchema, { pageSize: 10 });
    case 'UpdateRoute':
      return unaryCall('RouteService', operation, UpdateRouteRequestSchema, { id: targets.routeId, handler: 'owner' });
    case 'DeleteRoute':
      return unaryCall('RouteService', operation, DeleteRouteRequestSchema, { id: spareRouteOf(targets) });
    case 'WatchRoutes':
      return unaryCall('RouteService', operation, WatchRoutesRequestSchema, { sinceRevision: 0n });
    case 'ApplyRoutes':
      return unaryCall('RouteService', operation, ApplyRoutesRequestSchema, ATTACK_APPLY);
    case 'ListRouteChanges':
      return unaryCall('RouteService', operation, ListRouteChangesRequestSchema, { pageSize: 10 });
    case 'RollbackRoutes':
      return unaryCall('RouteService', operation, RollbackRoutesRequestSchema, { revision: 0n, dryRun: true });
    case 'ListAssets':
      return assetCall(operation, ListAssetsRequestSchema, { pageSize: 10, type: 'text/*' });
    case 'WatchAssets':
      return assetCall(operation, WatchAssetsRequestSchema, {});
    case 'ListAssetChanges':
      return assetCall(operation, ListAssetChangesRequestSchema, { id: targets.assetId });
    case 'UpdateAsset':
      return assetCall(operation, UpdateAssetRequestSchema, { id: targets.assetId, label: 'owner' });
    case 'DeleteAsset':
      return assetCall(operation, DeleteAssetRequestSchema, { id: spareOf(targets) });
    case 'BatchDeleteAssets':
      return assetCall(operation, BatchDeleteAssetsRequestSchema, { ids: [spareOf(targets)] });
    case 'CreateSignedUrl':
      return assetCall(operation, CreateSignedUrlRequestSchema, { id: targets.assetId, expiresIn: 60n });
    case 'RevokeSignedUrls':
      return assetCall(operation, RevokeSignedUrlsRequestSchema, { id: targets.assetId });
    case 'GetWorkspaceUsage':
      return assetCall(operation, GetWorkspaceUsageRequestSchema, {});
    case 'GetWorkspacePolicy':
      return assetCall(operation, GetWorkspacePolicyRequestSchema, {});
    case 'SetWorkspacePolicy':
      return assetCall(operation, SetWorkspacePolicyRequestSchema, {});
    case 'CreateUpload':
      return unaryCall('UploadService', operation, CreateUploadRequestSchema, {
        length: BigInt(ATTACK_BYTES.length),
        filename: 'attack.txt',
        label: 'attack',
      });
    case 'AppendUpload':
      return {
        schema: AppendUploadRequestSchema,
        messages: [
          { payload: { case: 'metadata', value: { id: freshUploadOf(targets), offset: 0n } } },
          { payload: { case: 'chunk', value: ATTACK_BYTES } },
        ],
        streaming: true,
        path: '/switchyard.v1.UploadService/AppendUpload',
      };
    case 'GetUpload':
      return unaryCall('UploadService', operation, GetUploadRequestSchema, { id: targets.uploadId });
    case 'TerminateUpload':
      return unaryCall('UploadService', operation, TerminateUploadRequestSchema, { id: spareUploadOf(targets) });
    case 'CreateKey':
      return unaryCall('KeyService', operation, CreateKeyRequestSchema, { ...ATTACK_KEY, expiresAt: timestampFromDate(inAnHour()) });
    case 'ListKeys':
      return unaryCall('KeyService', operation, ListKeysRequestSchema, { pageSize: 10 });
    case 'GetKey':
      return unaryCall('KeyService', operation, GetKeyRequestSchema, { id: targets.keyId });
    case 'RevokeKey':
      return unaryCall('KeyService', operation, RevokeKeyRequestSchema, { id: spareKeyOf(targets) });
    case 'RollKey':
      return unaryCall('KeyService', operation, RollKeyRequestSchema, { id: targets.keyId, graceSeconds: 0 });
    case 'ListAssetVersions':
      return assetCall(operation, ListAssetVersionsRequestSchema, { id: targets.versionedAssetId });
    case 'ReadAssetVersion':
      return assetCall(operation, ReadAssetVersionRequestSchema, { id: targets.versionedAssetId, versionId: targets.versionId });
    case 'RestoreAssetVersion':
      return assetCall(operation, RestoreAssetVersionRequestSchema, spareVersionOf(targets));
    case 'ListTrash':
      return assetCall(operation, ListTrashRequestSchema, { pageSize: 10 });
    case 'RestoreAsset':
      return assetCall(operation, RestoreAssetRequestSchema, { id: trashedOf(targets) });
    case 'PurgeAsset':
      return assetCall(operation, PurgeAssetRequestSchema, { id: trashedOf(targets) });
    case 'DeleteAssetPurge':
      return {
        schema: DeleteAssetRequestSchema,
        messages: [{ id: spareOf(targets), purge: true }],
        streaming: false,
        path: '/switchyard.v1.AssetService/DeleteAsset',
      };
    case 'CreateWebhook':
      return webhookCall(operation, CreateWebhookRequestSchema, ATTACK_WEBHOOK);
    case 'ListWebhooks':
      return webhookCall(operation, ListWebhooksRequestSchema, {});
    case 'GetWebhook':
      return webhookCall(operation, GetWebhookRequestSchema, { id: targets.webhookId });
    case 'UpdateWebhook':
      return webhookCall(operation, UpdateWebhookRequestSchema, { id: targets.webhookId, description: 'owner' });
    case 'DeleteWebhook':
      return webhookCall(operation, DeleteWebhookRequestSchema, { id: spareWebhookOf(targets) });
    case 'RotateWebhookSecret':
      return webhookCall(operation, RotateWebhookSecretRequestSchema, { id: targets.webhookId });
    case 'TestWebhook':
      return webhookCall(operation, TestWebhookRequestSchema, { id: targets.webhookId });
    case 'ListDeliveries':
      return webhookCall(operation, ListDeliveriesRequestSchema, { id: targets.webhookId, pageSize: 10 });
    case 'ResendDelivery':
      return webhookCall(operation, ResendDeliveryRequestSchema, { id: targets.webhookId, deliveryId: targets.deliveryId });
    case 'RecoverDeliveries':
      return webhookCall(operation, RecoverDeliveriesRequestSchema, { id: targets.webhookId, since: timestampFromDate(anHourAgo()) });
  }
}

function webhookCall<S extends DescMessage>(operation: Operation, schema: S, message: MessageInitShape<S>) {
  return unaryCall('WebhookService', operation, schema, message);
}

function assetCall<S extends DescMessage>(operation: Operation, schema: S, message: MessageInitShape<S>) {
  return unaryCall('AssetService', operation, schema, message);
}

/** One request message (the answer may still be a stream: see STREAMING_ANSWER). */
function unaryCall<S extends DescMessage>(service: string, operation: Operation, schema: S, message: MessageInitShape<S>) {
  return { schema, messages: [message as MessageInitShape<DescMessage>], streaming: false, path: `/switchyard.v1.${service}/${operation}` };
}

function envelope(flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

function* envelopes(body: Buffer): Generator<{ flags: number; payload: Buffer }> {
  let at = 0;
  while (at + 5 <= body.length) {
    const length = body.readUInt32BE(at + 1);
    yield { flags: body.readUInt8(at), payload: body.subarray(at + 5, at + 5 + length) };
    at += 5 + length;
  }
}

/** Connect's JSON for a protobuf init shape: bytes as base64, oneofs flattened, a Timestamp as its RFC 3339 string. */
function connectJson(message: MessageInitShape<DescMessage>): unknown {
  const { payload, ...rest } = message as { payload?: { case: string; value: unknown } };
  if (!payload)
    return Object.fromEntries(
      Object.entries(rest).map(([field, value]) => [field, isMessage(value, TimestampSchema) ? timestampDate(value).toISOString() : value]),
    );
  return { [payload.case]: Buffer.isBuffer(payload.value) ? payload.value.toString('base64') : payload.value };
}

function connectSurfaces(gatewayUrl: string): Surface[] {
  return OPERATIONS.map((operation) => ({
    transport: 'connect' as const,
    operation,
    name: `Connect ${operation}`,
    call: async (authorization, targets, extra) => {
      const { messages, streaming, path } = messagesOf(operation, targets);
      if (STREAMING_ANSWER.has(operation)) {
        const body = envelope(
          0,
          Buffer.from(
            JSON.stringify(connectJson(messages[0]!), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
          ),
        );
        const answer = await httpFirst(
          gatewayUrl,
          'POST',
          withQuery(path, extra),
          withAuth({ 'content-type': 'application/connect+json', 'connect-protocol-version': '1' }, authorization, extra),
          body,
          true,
        );
        if (answer.status !== 200) return restOutcome(answer, false, true);
        const raw = `${JSON.stringify(answer.headers)} ${answer.body.toString('latin1')}`;
        for (const { flags, payload } of envelopes(answer.body)) {
          if ((flags & 0x02) === 0) return { code: 'ok', status: 200, message: '', raw };
          const error = (JSON.parse(payload.toString('utf8')) as { error?: { code: string; message?: string } }).error;
          return error
            ? { code: error.code, status: 200, message: error.message ?? '', raw }
            : { code: 'ok', status: 200, message: '', raw };
        }
        return { code: 'no message', status: 200, message: '', raw };
      }
      if (!streaming) {
        const body = Buffer.from(
          JSON.stringify(connectJson(messages[0]!), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
        );
        const answer = await httpCall(
          gatewayUrl,
          'POST',
          withQuery(path, extra),
          withAuth({ 'content-type': 'application/json', 'connect-protocol-version': '1' }, authorization, extra),
          body,
        );
        return restOutcome(answer, false, true);
      }
      const body = Buffer.concat(
        messages.map((message) =>
          envelope(
            0,
            Buffer.from(
              JSON.stringify(connectJson(message), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
            ),
          ),
        ),
      );
      const answer = await httpCall(
        gatewayUrl,
        'POST',
        withQuery(path, extra),
        withAuth({ 'content-type': 'application/connect+json', 'connect-protocol-version': '1' }, authorization, extra),
        body,
      );
      if (answer.status !== 200) return restOutcome(answer, false, true);
      const raw = `${JSON.stringify(answer.headers)} ${answer.body.toString('latin1')}`;
      let value: Record<string, unknown> | undefined;
      for (const { flags, payload } of envelopes(answer.body)) {
        const parsed = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
        if ((flags & 0x02) === 0) value = parsed;
        else if (parsed['error']) {
          const error = parsed['error'] as { code: string; message?: string };
          return { code: error.code, status: 200, message: error.message ?? '', raw };
        }
      }
      return { code: 'ok', status: 200, message: '', raw, ...(value ? { value } : {}) };
    },
  }));
}

function grpcStatusOf(headers: Record<string, string | string[] | undefined>): { code: string; message: string } | undefined {
  const status = headers['grpc-status'];
  if (status === undefined) return undefined;
  return {
    code: GRPC_CODE_NAME[Number(status)] ?? `grpc ${String(status)}`,
    message: decodeURIComponent(String(headers['grpc-message'] ?? '')),
  };
}

function grpcWebSurfaces(gatewayUrl: string): Surface[] {
  return OPERATIONS.map((operation) => ({
    transport: 'grpc-web' as const,
    operation,
    name: `gRPC-Web ${operation}`,
    call: async (authorization, targets, extra) => {
      const { schema, messages, path } = messagesOf(operation, targets);
      const body = Buffer.concat(messages.map((message) => envelope(0, Buffer.from(toBinary(schema, create(schema, message))))));
      const headers = withAuth({ 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1' }, authorization, extra);
      const answer = STREAMING_ANSWER.has(operation)
        ? await httpFirst(gatewayUrl, 'POST', withQuery(path, extra), headers, body, true)
        : await httpCall(gatewayUrl, 'POST', withQuery(path, extra), headers, body);
      const raw = `${JSON.stringify(answer.headers)} ${answer.body.toString('latin1')}`;
      if (answer.status !== 200) return restOutcome(answer, false);
      const inHeaders = grpcStatusOf(answer.headers);
      if (inHeaders) return { ...inHeaders, status: 200, raw };
      for (const { flags, payload } of envelopes(answer.body)) {
        // A message before any trailers: a stream that started (the call was let in).
        if ((flags & 0x80) === 0 && STREAMING_ANSWER.has(operation)) return { code: 'ok', status: 200, message: '', raw };
        if ((flags & 0x80) === 0) continue;
        const trailers = Object.fromEntries(
          payload
            .toString('latin1')
            .split('\r\n')
            .filter(Boolean)
            .map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        const status = grpcStatusOf(trailers);
        if (status) return { ...status, status: 200, raw };
      }
      return { code: 'no grpc-status', status: 200, message: '', raw };
    },
  }));
}

/** The operations the ts-proto test clients call; the others (and unprintable metadata) go over raw HTTP/2. */
const CLIENT_OPERATIONS = ['CreateRoute', 'GetRoute', 'MatchRoute', 'GetAsset', 'UploadAsset', 'ReplaceAsset'] as const;
type ClientOperation = (typeof CLIENT_OPERATIONS)[number];
const isClientOperation = (operation: Operation): operation is ClientOperation =>
  (CLIENT_OPERATIONS as readonly string[]).includes(operation);

/** gRPC metadata values must be printable ASCII; grpc-js will not send anything else, so those go over raw HTTP/2. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function grpcSurfaces(serviceAddress: string, clients: GrpcClients, rawSession: () => ClientHttp2Session): Surface[] {
  const viaClient = async (operation: ClientOperation, metadata: Metadata, targets: Targets): Promise<Outcome> => {
    const { messages } = messagesOf(operation, targets);
    try {
      const value = await (async (): Promise<unknown> => {
        switch (operation) {
          case 'CreateRoute':
            return clients.createRoute(metadata, messages[0] as never);
          case 'GetRoute':
            return clients.getRoute(metadata, targets.routeId);
          case 'MatchRoute':
            return clients.matchRoute(metadata, 'GET', targets.matchPath);
          case 'GetAsset':
            return clients.getAsset(metadata, targets.assetId);
          case 'UploadAsset':
            return clients.upload(metadata, { label: 'attack', filename: 'attack.txt' }, ATTACK_BYTES);
          case 'ReplaceAsset':
            return clients.replace(metadata, { id: targets.assetId, filename: 'attack.txt' }, ATTACK_BYTES);
        }
      })();
      return { code: 'ok', message: '', raw: JSON.stringify(value), value: value as Record<string, unknown> };
    } catch (error) {
      const failure = error as ServiceError;
      if (typeof failure.code !== 'number') throw error;
      return {
        code: GRPC_CODE_NAME[failure.code] ?? `grpc ${failure.code}`,
        message: failure.details,
        raw: `${failure.details} ${JSON.stringify(failure.metadata?.toJSON() ?? {})}`,
      };
    }
  };
  const viaHttp2 = (operation: Operation, authorization: readonly string[], targets: Targets): Promise<Outcome> => {
    const streamingAnswer = STREAMING_ANSWER.has(operation);
    const { schema, messages, path } = messagesOf(operation, targets);
    const body = Buffer.concat(messages.map((message) => envelope(0, Buffer.from(toBinary(schema, create(schema, message))))));
    return new Promise((resolve, reject) => {
      const stream = rawSession().request({
        ':method': 'POST',
        ':path': path,
        'content-type': 'application/grpc',
        te: 'trailers',
        authorization: authorization as unknown as string,
      });
      let headers: Http2Headers = {};
      const chunks: Buffer[] = [];
      stream.on('response', (received) => (headers = received));
      stream.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        // A watch never ends by itself: its first message means the call was let in.
        if (streamingAnswer) {
          resolve({ code: 'ok', message: '', raw: `${JSON.stringify(headers)} ${Buffer.concat(chunks).toString('latin1')}` });
          stream.close();
        }
      });
      stream.on('trailers', (trailers: Http2Headers) => (headers = { ...headers, ...trailers }));
      stream.on('error', reject);
      stream.on('close', () => {
        const status = grpcStatusOf(headers);
        const raw = `${JSON.stringify(headers)} ${Buffer.concat(chunks).toString('latin1')}`;
        resolve(status ? { ...status, raw } : { code: 'no grpc-status', message: '', raw });
      });
      stream.end(body);
    });
  };
  return OPERATIONS.map((operation) => ({
    transport: 'grpc' as const,
    operation,
    name: `gRPC ${operation} at ${serviceAddress}`,
    call: async (authorization, targets) => {
      const values = authorization === undefined ? [] : typeof authorization === 'string' ? [authorization] : [...authorization];
      if (isClientOperation(operation) && values.every((value) => PRINTABLE_ASCII.test(value))) {
        const metadata = new Metadata();
        for (const value of values) metadata.add('authorization', value);
        return viaClient(operation, metadata, targets);
      }
      return viaHttp2(operation, values, targets);
    },
  }));
}

/** A delete that succeeded took its spare: the next call aims at the next one. */
function consuming(surface: Surface, spares: (targets: Targets) => string[]): Surface {
  return {
    ...surface,
    call: async (authorization, targets, extra) => {
      const list = spares(targets);
      const spare = list[0];
      const outcome = await surface.call(authorization, targets, extra);
      if (outcome.code === 'ok' && list[0] === spare) list.shift();
      return outcome;
    },
  };
}

/** Decodes an Asset from gRPC-Web/gRPC bytes, for checks that read what a call returned. */
export function decodeAsset(bytes: Buffer) {
  return fromBinary(AssetSchema, bytes);
}

export interface Wires {
  readonly surfaces: readonly Surface[];
  readonly clients: GrpcClients;
  close(): void;
}

/** Every operation on every wire of one deployment: a gateway at `gatewayUrl`, its service at `serviceAddress`. */
export function wiresOf(gatewayUrl: string, serviceAddress: string): Wires {
  const clients = new GrpcClients(serviceAddress);
  let session: ClientHttp2Session | undefined;
  const rawSession = () => {
    if (!session || session.closed || session.destroyed) {
      session = http2Connect(`http://${serviceAddress}`);
      session.on('error', () => undefined);
    }
    return session;
  };
  const surfaces = [
    ...restSurfaces(gatewayUrl),
    ...connectSurfaces(gatewayUrl),
    ...grpcWebSurfaces(gatewayUrl),
    ...grpcSurfaces(serviceAddress, clients, rawSession),
  ];
  return {
    surfaces: surfaces.map((surface) => {
      const take = CONSUMING.get(surface.operation);
      return take ? consuming(surface, take) : surface;
    }),
    clients,
    close: () => {
      clients.close();
      session?.close();
    },
  };
}

export { GrpcStatus };
