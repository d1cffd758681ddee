import { ASSET_CHANGE_TYPES } from '@switchyard/core';
import { z } from 'zod';
import { AssetSchema, optionalQuery, pageSize, revisionQuery } from './schemas.js';

// The asset change log's shapes on the REST wire: a change, a page of an asset's history, the watch's query.

export const AssetChangeSchema = z
  .object({
    type: z.enum(ASSET_CHANGE_TYPES).meta({ description: 'What happened; also the event name on `GET /v1/assets:watch`.' }),
    revision: z
      .number()
      .int()
      .min(1)
      .meta({ description: "The workspace's asset revision this change brought; a batch delete's changes share one." }),
    time: z.string().meta({
      description: "When it was made, by the service's clock (ISO 8601 UTC, milliseconds).",
      examples: ['2024-05-01T12:00:00.000Z'],
    }),
    actor: z.string().meta({ description: "Who made it: the caller's token `sub`." }),
    assetId: z.string(),
    asset: AssetSchema.nullable().meta({ description: 'The asset after the change; `null` for a delete.' }),
    previous: z
      .object({ type: z.string(), size: z.number().int().min(0), sha256: z.string() })
      .optional()
      .meta({ description: '`asset.replaced` only: the file the replace displaced.' }),
    reason: z.enum(['restore', 'purge']).optional().meta({
      description:
        'Absent for plain writes. `restore`: an `asset.replaced` that made a version current, or an `asset.created` that brought the asset back from the trash. `purge`: an `asset.deleted` for good, or an `asset.updated` that purged versions.',
    }),
    versionIds: z
      .array(z.string())
      .optional()
      .meta({ description: 'The version a restore made current, or the versions a purge removed.' }),
  })
  .meta({ id: 'AssetChange' });

export const AssetChangePageSchema = z
  .object({
    changes: z.array(AssetChangeSchema).meta({ description: 'Newest first.' }),
    nextPageToken: z.string().meta({ description: 'Pass as `pageToken` for the next page; empty on the last page.' }),
  })
  .meta({ id: 'AssetChangePage' });

export const AssetHistoryQuerySchema = z.object({
  pageSize,
  pageToken: optionalQuery("The previous page's `nextPageToken`; a token from another listing is 400.", 'MS5hc18wMWo…'),
});

export const WatchAssetsQuerySchema = z.object({
  sinceRevision: revisionQuery.optional().meta({
    description:
      'Only the changes after this revision (a `reset` event when they are no longer kept). Unset: from now on, starting with a `synced` event. `Last-Event-ID` wins over it.',
    examples: [0],
  }),
});

export const WatchAssetsHeadersSchema = z.looseObject({
  'last-event-id': revisionQuery.optional().meta({ description: 'Set by a reconnecting EventSource: resumes after this revision.' }),
});

export type AssetChangeView = z.infer<typeof AssetChangeSchema>;
