import { z } from 'zod';
import { AssetSchema, optionalQuery, pageSize } from './schemas.js';

// The REST shapes of versions and the trash (issue 43; CONTRACT.md "Versions and trash").

const time = (description: string) => z.string().meta({ description, examples: ['2024-05-01T12:00:00.000Z'] });

export const AssetVersionSchema = z
  .object({
    id: z.string().meta({ pattern: '^ver_[0-9a-hjkmnp-tv-z]{26}$', description: 'Version id.' }),
    type: z.string().meta({ description: 'Media type sniffed from its bytes.' }),
    size: z.number().int().min(0).meta({ description: 'Bytes.' }),
    sha256: z.string().meta({ description: 'Lower-case hex SHA-256 of its bytes.' }),
    name: z.string().meta({ description: "The asset's name while this file was current." }),
    uploadedAt: time('When this file was uploaded (ISO 8601 UTC).'),
    actor: z.string().meta({ description: 'Who uploaded it (a token `sub`); empty for files uploaded before versions were kept.' }),
    replacedAt: time('When a replace made it a version; retention counts from here.'),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    durationMs: z.number().int().optional(),
    pages: z.number().int().optional(),
    placeholder: z.string().optional(),
  })
  .meta({ id: 'AssetVersion' });

export const AssetVersionListSchema = z
  .object({ versions: z.array(AssetVersionSchema).meta({ description: 'Newest first.' }) })
  .meta({ id: 'AssetVersionList' });

export const VersionParams = z.object({
  id: z.string().meta({ description: 'Asset id (`as_…`). A malformed id is 400, a well-formed unknown one 404.' }),
  versionId: z.string().meta({ description: 'Version id (`ver_…`). A malformed id is 400, a well-formed unknown one 404.' }),
});

export const TrashedAssetSchema = AssetSchema.extend({
  deletedAt: time('When it was deleted.'),
  deletedBy: z.string().meta({ description: 'Who deleted it (a token `sub`).' }),
  purgeAt: time("When `switchyard gc` purges it: `deletedAt` plus the policy's `retentionDays` as it is now."),
}).meta({ id: 'TrashedAsset' });

export const TrashPageSchema = z
  .object({
    assets: z.array(TrashedAssetSchema).meta({ description: 'Newest id first.' }),
    nextPageToken: z.string().meta({ description: 'Pass as `pageToken` for the next page; empty on the last page.' }),
  })
  .meta({ id: 'TrashPage' });

export const TrashQuerySchema = z.object({
  pageSize,
  pageToken: optionalQuery("The previous page's `nextPageToken`; a token from another listing is 400.", 'MS5hc18wMWo…'),
});

export const DeleteAssetQuerySchema = z.object({
  purge: z.enum(['true', 'false'], { error: 'must be true or false' }).optional().meta({
    description: 'true: skip the trash, the asset, its versions and their bytes go at once (scope workspace:admin), for erasure requests.',
  }),
});

export type AssetVersionView = z.infer<typeof AssetVersionSchema>;
export type TrashedAssetView = z.infer<typeof TrashedAssetSchema>;
