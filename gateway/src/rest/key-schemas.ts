import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Caller, CreateKeyResponse, Key } from '@switchyard/proto';
import { z } from 'zod';
import { isoTime } from './views.js';

// The JSON shapes of /v1/keys (API keys, workspace:admin), apart from the
// other resources' schemas.

const time = (description: string) => z.string().meta({ format: 'date-time', description, examples: ['2025-01-31T09:30:00.000Z'] });
const SCOPE_NAMES = ['routes:read', 'routes:write', 'assets:read', 'assets:write', 'workspace:admin'];

export const KeySchema = z
  .object({
    id: z.string().meta({ pattern: '^key_[0-9a-hjkmnp-tv-z]{26}$', description: 'Assigned by the service.' }),
    name: z.string().meta({ description: 'What the key is for, 1 to 100 characters.' }),
    scopes: z.array(z.string().meta({ enum: SCOPE_NAMES })).meta({ description: 'What the key may do: a subset of its creator’s scopes.' }),
    createdBy: z.string().meta({ description: 'The subject of whoever created the key.' }),
    createdAt: time('When the key was created.'),
    expiresAt: time('The key is refused from this instant on.'),
    lastUsedAt: time('Within a minute of the latest call the key authenticated; null when never used.').nullable(),
    revokedAt: time('When the key was revoked; null while it is live. Revoked and expired keys stay listed for 30 days.').nullable(),
  })
  .meta({ id: 'ApiKey' });

export const KeyWithSecretSchema = KeySchema.extend({
  secret: z.string().meta({
    pattern: '^sy_[0-9A-Za-z]{36}$',
    description: 'Send as `Authorization: Bearer <secret>`. Shown only here: the service keeps a digest, never the secret.',
  }),
}).meta({ id: 'ApiKeyWithSecret' });

export const CreateKeyBodySchema = z
  .strictObject({
    name: z.string().meta({ description: '1 to 100 characters.', examples: ['deploy bot'] }),
    scopes: z
      .array(z.string())
      .meta({ description: 'At least one; none the caller lacks (403).', examples: [['routes:read', 'routes:write']] }),
    expiresAt: z.iso.datetime({ offset: true }).meta({
      description: 'Required: in the future, and at most 365 days ahead (the operator may set another limit, KEY_MAX_TTL).',
    }),
  })
  .meta({ id: 'CreateKeyBody' });

export const RollKeyBodySchema = z
  .strictObject({
    graceSeconds: z
      .number()
      .int()
      .min(0)
      .max(604_800)
      .meta({ description: 'How long the old secret keeps working (0 to 604800 s).', examples: [3600] }),
  })
  .meta({ id: 'RollKeyBody' });

export const KeyPageSchema = z
  .object({
    keys: z.array(KeySchema),
    nextPageToken: z.string().meta({ description: 'Pass as `pageToken` for the next page; empty on the last page.' }),
  })
  .meta({ id: 'ApiKeyPage' });

export const KeyIdParams = z.object({
  id: z.string().meta({ description: 'Key id (`key_…`). A malformed id is 400, a well-formed unknown one 404.' }),
});

export const CallerSchema = z
  .object({
    subject: z.string().meta({ description: "A token's `sub`, or the key's id." }),
    workspace: z.string(),
    scopes: z.array(z.string().meta({ enum: SCOPE_NAMES })),
    keyId: z.string().nullable().meta({ description: 'The API key that authenticated the call; null for a token.' }),
    expiresAt: time("The key's expiry; null for a token.").nullable(),
  })
  .meta({ id: 'Caller' });

export type KeyView = z.infer<typeof KeySchema>;
export type KeyWithSecretView = z.infer<typeof KeyWithSecretSchema>;

export function keyView(key: Key | undefined): KeyView {
  return {
    id: key?.id ?? '',
    name: key?.name ?? '',
    scopes: [...(key?.scopes ?? [])],
    createdBy: key?.createdBy ?? '',
    createdAt: isoTime(key?.createdAt, 'createdAt'),
    expiresAt: isoTime(key?.expiresAt, 'expiresAt'),
    lastUsedAt: key?.lastUsedAt ? timestampDate(key.lastUsedAt).toISOString() : null,
    revokedAt: key?.revokedAt ? timestampDate(key.revokedAt).toISOString() : null,
  };
}

export function callerView(caller: Caller): z.infer<typeof CallerSchema> {
  return {
    subject: caller.subject,
    workspace: caller.workspace,
    scopes: [...caller.scopes],
    keyId: caller.keyId === '' ? null : caller.keyId,
    expiresAt: caller.expiresAt ? timestampDate(caller.expiresAt).toISOString() : null,
  };
}

export function keyWithSecretView(answer: CreateKeyResponse): KeyWithSecretView {
  return { ...keyView(answer.key), secret: answer.secret };
}
