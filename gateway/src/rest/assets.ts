import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Asset, ReplaceAssetRequestSchema, UploadAssetRequestSchema, WorkspacePolicy } from '@switchyard/proto';
import { ApiError, overloaded, toApiError } from '../http/api-error.js';
import type { RequestContext } from '../http/context.js';
import { isSettled } from '../http/respond.js';
import type { Slots } from '../http/slots.js';
import type { ServiceClients } from '../service/clients.js';
import { coalesce, type CoalesceOptions } from './coalesce.js';
import { systemClock, type Clock } from '@switchyard/core';
import { MultipartForm, type FilePart } from './multipart-form.js';
import { assetView, isoTime } from './views.js';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { Logger } from '@switchyard/runtime';
import { acceptUnreadBodies } from '../app/unread-bodies.js';
import { contextOf } from '../app/request-context.js';
import { errorResponses } from '../openapi/responses.js';
import { z } from 'zod';
import {
  AssetIdParams,
  AssetPageSchema,
  AssetSchema,
  BatchDeleteBodySchema,
  BatchDeleteResultsSchema,
  ListAssetsQuerySchema,
  ReplaceFormSchema,
  SetWorkspacePolicyBodySchema,
  SignedUrlBodySchema,
  SignedUrlSchema,
  UpdateAssetBodySchema,
  UploadFormSchema,
  WorkspacePolicySchema,
  WorkspaceUsageSchema,
  type WorkspacePolicyView,
} from './schemas.js';
import { DeleteAssetQuerySchema } from './retention-schemas.js';

export interface AssetDeps {
  readonly clients: ServiceClients;
  readonly maxUploadBytes: number;
  /** Uploads and replaces streaming at once (MAX_INFLIGHT_UPLOADS), shared with the Connect protocol's. */
  readonly uploadSlots: Slots;
  readonly log: Logger;
  /** The clock the chunks' hold time is measured by (the system's by default). */
  readonly time?: Clock | undefined;
}

/** Bytes per gRPC message: few enough messages to be cheap, small enough to keep memory flat per upload. */
const CHUNK_BYTES = 1024 * 1024;
/** …but a slow client's bytes are passed on at least this often, well inside the service's upload idle timeout. */
const CHUNK_HOLD_MS = 1_000;

type UploadMessage = MessageInitShape<typeof UploadAssetRequestSchema>;
type ReplaceMessage = MessageInitShape<typeof ReplaceAssetRequestSchema>;

/** Assets: multipart upload and replace, streamed to the service as they arrive; get. */
export const assetRoutes: FastifyPluginAsyncZod<AssetDeps> = async (
  app,
  { clients, maxUploadBytes, uploadSlots, log, time = systemClock },
) => {
  const held = { maxHoldMs: CHUNK_HOLD_MS, now: () => time.now().getTime() };
  app.get(
    '/v1/assets/:id',
    {
      schema: {
        tags: ['assets'],
        operationId: 'getAsset',
        summary: 'Get an asset (scope assets:read)',
        params: AssetIdParams,
        response: { 200: AssetSchema.describe('The asset.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) =>
      assetView(await clients.assets.getAsset({ id: request.params.id }, contextOf(request, reply, log).callOptions())),
  );

  app.get(
    '/v1/assets',
    {
      schema: {
        tags: ['assets'],
        operationId: 'listAssets',
        summary: "List the workspace's assets, newest first (scope assets:read)",
        description:
          'Cursor pages of `pageSize` (1-1000, default 50): pass `nextPageToken` back as `pageToken`, with the same filters (a token of another listing is 400), until it is empty on the last page. Assets added or deleted meanwhile never make a page skip or repeat another. `type`, `label` and `q` (a case-insensitive prefix of the name) combine.',
        querystring: ListAssetsQuerySchema,
        response: { 200: AssetPageSchema.describe('A page.'), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const { pageSize, pageToken, type, label, q } = request.query;
      const page = await clients.assets.listAssets(
        { pageSize: pageSize ?? 0, pageToken: pageToken ?? '', type: type ?? '', q: q ?? '', ...(label === undefined ? {} : { label }) },
        contextOf(request, reply, log).callOptions(),
      );
      return { assets: page.assets.map(assetView), nextPageToken: page.nextPageToken };
    },
  );

  app.delete(
    '/v1/assets/:id',
    {
      schema: {
        tags: ['assets'],
        operationId: 'deleteAsset',
        summary: 'Delete an asset (scope assets:write)',
        description:
          "Its id and every url it had answer 404 at once. It stays in the workspace's trash (`GET /v1/trash`) with its versions for the policy's `retentionDays`; with `?purge=true` (scope workspace:admin) or `retentionDays: 0` it and its versions are gone, the stored bytes right after (or to `gc`).",
        params: AssetIdParams,
        querystring: DeleteAssetQuerySchema,
        response: { 204: z.undefined().describe('Deleted.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      await clients.assets.deleteAsset(
        { id: request.params.id, purge: request.query.purge === 'true' },
        contextOf(request, reply, log).callOptions(),
      );
      return reply.code(204).send();
    },
  );

  // `:batchDelete` is a custom method in the style of Google's AIP-136, so it can never be taken for an asset id.
  app.post(
    '/v1/assets::batchDelete',
    {
      schema: {
        tags: ['assets'],
        operationId: 'batchDeleteAssets',
        summary: 'Delete up to 1000 assets (scope assets:write)',
        description: '`ids`: 1 to 1000. `results` gives a `code` per id: `ok`, `not_found` or `invalid_argument`.',
        body: BatchDeleteBodySchema,
        response: { 200: BatchDeleteResultsSchema.describe('What became of each id.'), ...errorResponses(400, 413) },
      },
    },
    async (request, reply) => {
      const answer = await clients.assets.batchDeleteAssets({ ids: request.body.ids }, contextOf(request, reply, log).callOptions());
      return { results: answer.results.map(({ id, code }) => ({ id, code: code as 'ok' | 'not_found' | 'invalid_argument' })) };
    },
  );

  app.patch(
    '/v1/assets/:id',
    {
      schema: {
        tags: ['assets'],
        operationId: 'updateAsset',
        summary: "Change an asset's label, name or visibility (scope assets:write)",
        description:
          'The file, its url and the other fields stay; a name over 255 characters is 400. Making an asset private makes its plain url answer 403; signed urls keep working until they expire.',
        params: AssetIdParams,
        body: UpdateAssetBodySchema,
        response: { 200: AssetSchema.describe('The asset as changed.'), ...errorResponses(400, 404, 413) },
      },
    },
    async (request, reply) => {
      const { label, name, visibility } = request.body;
      return assetView(
        await clients.assets.updateAsset({ id: request.params.id, label, name, visibility }, contextOf(request, reply, log).callOptions()),
      );
    },
  );

  app.post(
    '/v1/assets/:id/signed-url',
    {
      schema: {
        tags: ['assets'],
        operationId: 'createSignedUrl',
        summary: "A url of the asset's file that works until it expires, also for a private asset (scope assets:read)",
        description:
          "`expiresIn`: 1 to 604800 seconds. HMAC-SHA256 over the path, every query parameter and the asset's link epoch, with a key id (`kid`) so keys rotate without breaking live links. Refused from `expiresAt` on; a replace, a delete or `DELETE /v1/assets/{id}/signed-urls` ends it.",
        params: AssetIdParams,
        body: SignedUrlBodySchema,
        response: { 200: SignedUrlSchema.describe('The signed url.'), ...errorResponses(400, 404, 413) },
      },
    },
    async (request, reply) => {
      const { expiresIn, transform } = request.body;
      const signed = await clients.assets.createSignedUrl(
        { id: request.params.id, expiresIn: BigInt(expiresIn), transform },
        contextOf(request, reply, log).callOptions(),
      );
      return { url: signed.url, expiresAt: isoTime(signed.expiresAt, 'expiresAt') };
    },
  );

  app.delete(
    '/v1/assets/:id/signed-urls',
    {
      schema: {
        tags: ['assets'],
        operationId: 'revokeSignedUrls',
        summary: 'End every signed url of the asset made so far (scope assets:write)',
        description:
          "Signatures cover the asset's link epoch, which this raises: links signed before answer 403 at once; new ones can be made.",
        params: AssetIdParams,
        response: { 204: z.undefined().describe('Revoked.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      await clients.assets.revokeSignedUrls({ id: request.params.id }, contextOf(request, reply, log).callOptions());
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/workspace/policy',
    {
      schema: {
        tags: ['workspace'],
        operationId: 'getWorkspacePolicy',
        summary: "The rules uploads to the caller's workspace are held to (scope workspace:admin)",
        response: { 200: WorkspacePolicySchema.describe('The policy in force.'), ...errorResponses(400) },
      },
    },
    async (request, reply) => policyView(await clients.assets.getWorkspacePolicy({}, contextOf(request, reply, log).callOptions())),
  );

  app.put(
    '/v1/workspace/policy',
    {
      schema: {
        tags: ['workspace'],
        operationId: 'setWorkspacePolicy',
        summary: "Replace the workspace's policy (scope workspace:admin)",
        description: 'Absent fields take their defaults. Applies to uploads and replaces that start afterwards; stored files stay.',
        body: SetWorkspacePolicyBodySchema,
        response: { 200: WorkspacePolicySchema.describe('The policy now in force.'), ...errorResponses(400, 413) },
      },
    },
    async (request, reply) => {
      const { allowedTypes, maxUploadBytes, defaultVisibility, stripImageMetadata, keepVersions, retentionDays } = request.body;
      const policy = await clients.assets.setWorkspacePolicy(
        {
          allowedTypes,
          maxUploadBytes: maxUploadBytes === undefined ? undefined : wholeBigInt(maxUploadBytes),
          defaultVisibility: defaultVisibility ?? '',
          stripImageMetadata: stripImageMetadata ?? false,
          keepVersions,
          retentionDays,
        },
        contextOf(request, reply, log).callOptions(),
      );
      return policyView(policy);
    },
  );

  app.get(
    '/v1/workspace/usage',
    {
      schema: {
        tags: ['assets'],
        operationId: 'getWorkspaceUsage',
        summary: "What the caller's workspace holds (scope assets:read)",
        response: { 200: WorkspaceUsageSchema.describe('Counts and bytes.'), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const usage = await clients.assets.getWorkspaceUsage({}, contextOf(request, reply, log).callOptions());
      return {
        assets: Number(usage.assets),
        bytes: Number(usage.bytes),
        versionBytes: Number(usage.versionBytes),
        trashBytes: Number(usage.trashBytes),
        routes: Number(usage.routes),
      };
    },
  );

  // The forms are read by the handlers as they stream, never buffered by a body parser.
  await app.register(async (scope) => {
    acceptUnreadBodies(scope);
    // The file limit is enforced by MultipartForm as the bytes arrive, not by a throw at the end of the part.
    await scope.register(multipart, { throwFileSizeLimit: false });
    const forms = scope.withTypeProvider<ZodTypeProvider>();
    forms.post(
      '/v1/assets/upload',
      {
        schema: {
          tags: ['assets'],
          operationId: 'uploadAsset',
          summary: 'Upload a file (scope assets:write)',
          description:
            "Streamed to storage as it arrives; the asset is usable as soon as the response comes. The file part's filename is the asset's `name`. 413 over the workspace's or the server's size limit; 415 for a type the workspace policy does not allow.",
          consumes: ['multipart/form-data'],
          response: { 201: AssetSchema.describe('Stored.'), ...errorResponses(400, 408, 413, 415) },
        },
        config: { formBody: UploadFormSchema },
      },
      async (request, reply) => {
        const ctx = contextOf(request, reply, log);
        // First: a credential that cannot be passed on is refused before a byte of the form is read.
        const options = ctx.callOptions({ streaming: true });
        const asset = await relayForm(request, ctx, ['label', 'visibility'], maxUploadBytes, uploadSlots, (form, file, signal) =>
          clients.assets.uploadAsset(uploadMessages(form, file, held), { ...options, signal }),
        );
        if (isSettled(reply.raw)) return reply.hijack();
        return reply
          .code(201)
          .header('location', `/v1/assets/${encodeURIComponent(asset.id)}`)
          .send(assetView(asset));
      },
    );
    forms.post(
      '/v1/assets/:id/replace',
      {
        schema: {
          tags: ['assets'],
          operationId: 'replaceAsset',
          summary: 'Replace the file behind an asset (scope assets:write)',
          description:
            'The id stays; type, size, url, sha256 and uploadedAt follow the new file, and so does the name when the file part has a filename. Held to the workspace policy like an upload. The old url answers 404 from then on.',
          consumes: ['multipart/form-data'],
          params: AssetIdParams,
          response: { 200: AssetSchema.describe('Replaced.'), ...errorResponses(400, 404, 408, 413, 415) },
        },
        config: { formBody: ReplaceFormSchema },
      },
      async (request, reply) => {
        const ctx = contextOf(request, reply, log);
        const { id } = request.params;
        const options = ctx.callOptions({ streaming: true });
        const asset = await relayForm(request, ctx, ['visibility'], maxUploadBytes, uploadSlots, (form, file, signal) =>
          clients.assets.replaceAsset(replaceMessages(id, form, file, held), { ...options, signal }),
        );
        if (isSettled(reply.raw)) return reply.hijack();
        return reply.code(200).send(assetView(asset));
      },
    );
  });
};

/**
 * Reads the form up to its file part, then hands it to `call`, which streams
 * it to the service. When the form turns out bad mid-way (too large, a second
 * file, truncated), its reason wins over whatever the aborted call reports;
 * when the service refuses early (bad token, unknown id), the form is
 * abandoned unread and the refusal answered at once. With every upload slot
 * taken, the form is refused unread (503, Retry-After) before it costs a byte
 * of buffer or a stream to the service.
 */
async function relayForm(
  request: FastifyRequest,
  ctx: RequestContext,
  fieldNames: readonly string[],
  maxFileBytes: number,
  slots: Slots,
  call: (form: MultipartForm, file: FilePart, signal: AbortSignal) => Promise<Asset>,
): Promise<Asset> {
  const release = slots.take();
  if (release === undefined) throw uploadsBusy(slots);
  // However the form ends, the call to the service ends with it: a stream left open there would hold a temp file.
  const done = new AbortController();
  try {
    const form = new MultipartForm(request, { maxFileBytes, fieldNames });
    try {
      return await call(form, await form.fileStarted, AbortSignal.any([ctx.signal, done.signal]));
    } catch (error) {
      throw form.failure() ?? toApiError(error, { bodyLimited: true });
    } finally {
      form.abandon();
    }
  } finally {
    done.abort();
    release();
  }
}

export function uploadsBusy(slots: Slots): ApiError {
  return overloaded(`this gateway is already streaming ${slots.size} uploads (MAX_INFLIGHT_UPLOADS); try again shortly`);
}

async function* uploadMessages(form: MultipartForm, file: FilePart, held: CoalesceOptions): AsyncGenerator<UploadMessage> {
  const before = file.fieldsBefore;
  yield {
    payload: {
      case: 'metadata',
      value: {
        label: before.get('label') ?? '',
        visibility: before.get('visibility') ?? '',
        filename: file.filename,
        declaredType: file.declaredType,
      },
    },
  };
  for await (const chunk of coalesce(form.bytes(), CHUNK_BYTES, held)) yield { payload: { case: 'chunk', value: chunk } };
  // Fields after the file are known only now; the service takes them as the stream's last messages.
  const after = await form.finished;
  const label = after.get('label');
  if (label !== undefined) yield { payload: { case: 'trailingLabel', value: label } };
  const visibility = after.get('visibility');
  if (visibility !== undefined) yield { payload: { case: 'trailingVisibility', value: visibility } };
}

async function* replaceMessages(id: string, form: MultipartForm, file: FilePart, held: CoalesceOptions): AsyncGenerator<ReplaceMessage> {
  yield {
    payload: {
      case: 'metadata',
      value: { id, visibility: file.fieldsBefore.get('visibility') ?? '', filename: file.filename, declaredType: file.declaredType },
    },
  };
  for await (const chunk of coalesce(form.bytes(), CHUNK_BYTES, held)) yield { payload: { case: 'chunk', value: chunk } };
  const visibility = (await form.finished).get('visibility');
  if (visibility !== undefined) yield { payload: { case: 'trailingVisibility', value: visibility } };
}

function policyView(policy: WorkspacePolicy): WorkspacePolicyView {
  return {
    allowedTypes: [...policy.allowedTypes],
    maxUploadBytes: Number(policy.maxUploadBytes),
    defaultVisibility: policy.defaultVisibility === 'private' ? 'private' : 'public',
    stripImageMetadata: policy.stripImageMetadata,
    keepVersions: policy.keepVersions,
    retentionDays: policy.retentionDays,
  };
}

/** JSON numbers past 2^53 are not exact; the service refuses any limit above MAX_UPLOAD_BYTES anyway. */
function wholeBigInt(value: number): bigint {
  if (!Number.isSafeInteger(value))
    throw new ApiError('invalid_argument', 'maxUploadBytes: must be a whole number of bytes', [
      { field: 'maxUploadBytes', reason: 'must be a whole number of bytes' },
    ]);
  return BigInt(value);
}
