import { z } from 'zod';
import { isoTime, optionalQuery, pageSize, REVISION_REASON, revisionQuery, RouteSchema, text } from './schemas.js';

// Routes as code: the JSON of apply, rollback and the change log (CONTRACT.md, "Routes as code").

const revisionField = (description: string) =>
  z
    .number({ error: REVISION_REASON })
    .int({ error: REVISION_REASON })
    .min(0, { error: REVISION_REASON })
    .max(Number.MAX_SAFE_INTEGER, { error: REVISION_REASON })
    .meta({ description });
const flag = (description: string) => z.boolean({ error: 'must be true or false' }).optional().meta({ description });
const objectOnly = { error: (issue: { code: string }) => (issue.code === 'invalid_type' ? 'must be a JSON object' : undefined) };

/** One desired route: a route's own fields (the service judges their grammar and reports each by index). */
const DesiredRouteSchema = z
  .strictObject(
    {
      method: text('HTTP method, case-insensitive.'),
      path: text('Path pattern, e.g. `/users/:id`.'),
      middleware: z
        .array(z.string({ error: 'must be an array of strings' }), { error: 'must be an array of strings' })
        .optional()
        .meta({ description: 'Ordered middleware names; none when left out.' }),
      handler: text('Handler function name.'),
      owner: text("The apply's owner, or left out.").optional(),
    },
    objectOnly,
  )
  .meta({ id: 'DesiredRoute' });

export const ApplyRoutesBodySchema = z
  .strictObject(
    {
      routes: z
        .array(DesiredRouteSchema, { error: 'must be an array of routes' })
        .meta({ description: 'The desired routes (at most 10,000), each method and path shape once.' }),
      owner: text('Whose routes the apply manages; left out or `""`: the routes without an owner.').optional(),
      prune: flag("Delete the owner's routes that `routes` no longer names (without it, an apply never deletes)."),
      expectedRevision: revisionField(
        'Apply only while the table is at this revision, else 409 `aborted` naming the current one.',
      ).optional(),
      dryRun: flag('Plan only: the answer says what would change; nothing is written.'),
    },
    objectOnly,
  )
  .meta({ id: 'ApplyRoutesRequest', description: 'Unknown fields are refused (400).' });

export const RollbackRoutesBodySchema = z
  .strictObject(
    {
      revision: revisionField('The revision whose table to restore; within the kept history.'),
      expectedRevision: revisionField('Roll back only while the table is at this revision, else 409 `aborted`.').optional(),
      dryRun: flag('Plan only: nothing is written.'),
    },
    objectOnly,
  )
  .meta({ id: 'RollbackRoutesRequest', description: 'Unknown fields are refused (400).' });

export const ApplyRoutesResultSchema = z
  .object({
    revision: z.number().int().min(0).meta({
      description: 'The revision written; with nothing to change, or for a dry run, the revision the plan was made against.',
    }),
    created: z.array(RouteSchema).meta({ description: 'Routes created (with `id` `""` in a dry run).' }),
    updated: z
      .array(z.object({ before: RouteSchema, after: RouteSchema }))
      .meta({ description: 'Routes changed, before and after (same id).' }),
    deleted: z.array(RouteSchema).meta({ description: 'Routes deleted, as they were.' }),
    unchanged: z.number().int().min(0).meta({ description: 'Desired routes that already were as desired.' }),
  })
  .meta({ id: 'ApplyRoutesResult' });

export const RouteChangeSchema = z
  .object({
    revision: z.number().int().min(1).meta({ description: 'The revision the change belongs to (one may hold several).' }),
    time: isoTime('When it was made.'),
    actor: z.string().meta({ description: 'Who made it (the token subject); `""` when unknown.' }),
    owner: z.string().meta({ description: 'The owner of the route changed.' }),
    kind: z.enum(['create', 'update', 'delete']),
    before: RouteSchema.nullable().meta({ description: 'The route before; `null` for a create.' }),
    after: RouteSchema.nullable().meta({ description: 'The route after; `null` for a delete.' }),
  })
  .meta({ id: 'RouteChange' });

export const RouteChangePageSchema = z
  .object({
    changes: z.array(RouteChangeSchema),
    nextPageToken: z
      .string()
      .meta({ description: 'Pass as `pageToken` for the next page; empty once the page reaches the current revision.' }),
  })
  .meta({ id: 'RouteChangePage' });

export const ListRouteChangesQuerySchema = z.object({
  sinceRevision: revisionQuery.optional().meta({
    description: 'The changes after this revision (0, the default: from the oldest kept); older than the kept history is 400.',
    examples: [0],
  }),
  pageSize,
  pageToken: optionalQuery("The previous page's `nextPageToken` (it wins over `sinceRevision`).", 'MS4xMi5h…'),
});
