import { Readable } from 'node:stream';
import type { AssetVersion, ReadAssetVersionResponse, TrashedAsset } from '@switchyard/proto';
import type { Logger } from '@switchyard/runtime';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { contextOf } from '../app/request-context.js';
import { ApiError } from '../http/api-error.js';
import { errorResponses } from '../openapi/responses.js';
import type { ServiceClients } from '../service/clients.js';
import {
  AssetVersionListSchema,
  TrashPageSchema,
  TrashQuerySchema,
  VersionParams,
  type AssetVersionView,
  type TrashedAssetView,
} from './retention-schemas.js';
import { AssetIdParams, AssetSchema } from './schemas.js';
import { assetView, isoTime } from './views.js';

export interface RetentionDeps {
  readonly clients: ServiceClients;
  readonly log: Logger;
}

// An id segment before a `:method` suffix (AIP-136), as keys.ts's `:roll`.
const SEGMENT = '(^[^:/]+)';

/** An asset's versions and the workspace's trash (CONTRACT.md "Versions and trash"). */
export const retentionRoutes: FastifyPluginAsyncZod<RetentionDeps> = async (app, { clients, log }) => {
  app.get(
    '/v1/assets/:id/versions',
    {
      schema: {
        tags: ['assets'],
        operationId: 'listAssetVersions',
        summary: 'The files replaces of an asset kept, newest first (scope assets:read)',
        description:
          "At most the policy's `keepVersions`, each for `retentionDays`. A version's old url stays dead: read its bytes through `…/versions/{versionId}/content`.",
        params: AssetIdParams,
        response: { 200: AssetVersionListSchema.describe('Its versions.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const answer = await clients.assets.listAssetVersions({ id: request.params.id }, contextOf(request, reply, log).callOptions());
      return { versions: answer.versions.map(versionView) };
    },
  );

  app.get(
    '/v1/assets/:id/versions/:versionId/content',
    {
      schema: {
        tags: ['assets'],
        operationId: 'getAssetVersionContent',
        summary: "A version's bytes (scope assets:read)",
        params: VersionParams,
        response: { 200: z.string().describe('The bytes, with the content type sniffed from them.'), ...errorResponses(400, 404) },
      },
      exposeHeadRoute: false,
    },
    async (request, reply) => {
      const ctx = contextOf(request, reply, log);
      const wanted = { id: request.params.id, versionId: request.params.versionId };
      const stream = clients.assets.readAssetVersion(wanted, ctx.callOptions({ streaming: true }));
      const messages = stream[Symbol.asyncIterator]();
      // The first message says what follows; a refusal arrives here, before any header is sent.
      const first = await messages.next();
      const version = first.done ? undefined : first.value.payload;
      if (version?.case !== 'version')
        throw new ApiError('internal', 'internal error', [], { cause: new Error('the service sent no version first') });
      const meta = version.value;
      reply
        .type(meta.type)
        .header('content-length', String(meta.size))
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff');
      // A stream where the schema names the body's text: Fastify sends streams as they are, unserialized.
      return reply.send(Readable.from(chunksOf(messages)) as unknown as string);
    },
  );

  app.post(
    `/v1/assets/:id/versions/:versionId${SEGMENT}::restore`,
    {
      schema: {
        tags: ['assets'],
        operationId: 'restoreAssetVersion',
        summary: 'Make a version current again (scope assets:write)',
        description:
          'As a replace: the current file becomes a version (when the policy keeps any), the asset keeps its id, and the `asset.replaced` change says `"reason": "restore"`.',
        params: VersionParams,
        response: { 200: AssetSchema.describe('The asset, the version current.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) =>
      assetView(
        await clients.assets.restoreAssetVersion(
          { id: request.params.id, versionId: request.params.versionId },
          contextOf(request, reply, log).callOptions(),
        ),
      ),
  );

  app.get(
    '/v1/trash',
    {
      schema: {
        tags: ['assets'],
        operationId: 'listTrash',
        summary: "The workspace's deleted assets, newest id first (scope assets:read)",
        description:
          "Kept for the policy's `retentionDays`, then purged by `switchyard gc` (`purgeAt`). Cursor pages of `pageSize` (1-1000, default 50): pass `nextPageToken` back as `pageToken` until it is empty.",
        querystring: TrashQuerySchema,
        response: { 200: TrashPageSchema.describe('A page.'), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const { pageSize, pageToken } = request.query;
      const page = await clients.assets.listTrash(
        { pageSize: pageSize ?? 0, pageToken: pageToken ?? '' },
        contextOf(request, reply, log).callOptions(),
      );
      return { assets: page.assets.map(trashedView), nextPageToken: page.nextPageToken };
    },
  );

  app.post(
    `/v1/trash/:id${SEGMENT}::restore`,
    {
      schema: {
        tags: ['assets'],
        operationId: 'restoreAsset',
        summary: 'Bring a deleted asset back (scope assets:write)',
        description:
          'With its id, name, label, visibility, file and versions; signed urls made before its delete stay refused (make new ones). 404 when it is not in the trash.',
        params: AssetIdParams,
        response: { 200: AssetSchema.describe('The asset, back.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) =>
      assetView(await clients.assets.restoreAsset({ id: request.params.id }, contextOf(request, reply, log).callOptions())),
  );

  app.delete(
    '/v1/trash/:id',
    {
      schema: {
        tags: ['assets'],
        operationId: 'purgeAsset',
        summary: 'Purge a deleted asset for good (scope assets:write)',
        description: 'Its row, its versions and their bytes go; its changes keep no name of it. 404 when it is not in the trash.',
        params: AssetIdParams,
        response: { 204: z.undefined().describe('Purged.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      await clients.assets.purgeAsset({ id: request.params.id }, contextOf(request, reply, log).callOptions());
      return reply.code(204).send();
    },
  );
};

async function* chunksOf(messages: AsyncIterator<ReadAssetVersionResponse>): AsyncGenerator<Uint8Array> {
  for (let next = await messages.next(); !next.done; next = await messages.next())
    if (next.value.payload.case === 'chunk') yield next.value.payload.value;
}

export function versionView(version: AssetVersion): AssetVersionView {
  return {
    id: version.id,
    type: version.type,
    size: Number(version.size),
    sha256: version.sha256,
    name: version.name,
    uploadedAt: isoTime(version.uploadedAt, 'uploadedAt'),
    actor: version.actor,
    replacedAt: isoTime(version.replacedAt, 'replacedAt'),
    ...(version.width === undefined ? {} : { width: version.width }),
    ...(version.height === undefined ? {} : { height: version.height }),
    ...(version.durationMs === undefined ? {} : { durationMs: version.durationMs }),
    ...(version.pages === undefined ? {} : { pages: version.pages }),
    ...(version.placeholder === undefined ? {} : { placeholder: version.placeholder }),
  };
}

function trashedView(trashed: TrashedAsset): TrashedAssetView {
  if (trashed.asset === undefined)
    throw new ApiError('internal', 'internal error', [], { cause: new Error('the service sent a trash entry without its asset') });
  return {
    ...assetView(trashed.asset),
    deletedAt: isoTime(trashed.deletedAt, 'deletedAt'),
    deletedBy: trashed.deletedBy,
    purgeAt: isoTime(trashed.purgeAt, 'purgeAt'),
  };
}
