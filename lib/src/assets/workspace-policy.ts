import { invalidArgument, SwitchyardError } from '../errors.js';
import { validateVisibility, type Visibility } from './visibility.js';

/** What a workspace lets its callers store. */
export interface WorkspacePolicy {
  /** Sniffed media types allowed (`image/png`, `image/*`); empty allows every type. */
  readonly allowedTypes: readonly string[];
  /** Largest file in bytes; never above the server's `maxUploadBytes`. */
  readonly maxUploadBytes: number;
  /** Visibility of uploads that do not name one. */
  readonly defaultVisibility: Visibility;
  /** JPEG, PNG, WebP and AVIF uploads are stored without EXIF, XMP and IPTC (GPS included), their orientation applied. */
  readonly stripImageMetadata: boolean;
  /** Replaced files an asset keeps as versions (0 to 100). */
  readonly keepVersions: number;
  /** Days versions and trashed assets are kept (0 to 365); 0 keeps neither. */
  readonly retentionDays: number;
}

/** A policy as stored: `maxUploadBytes` absent means "the server's maximum", which follows its configuration. */
export interface StoredWorkspacePolicy {
  readonly allowedTypes: readonly string[];
  readonly maxUploadBytes?: number | undefined;
  readonly defaultVisibility: Visibility;
  /** Absent: false (policies stored before there was the field). */
  readonly stripImageMetadata?: boolean | undefined;
  /** Absent: the default (policies stored before there were the fields). */
  readonly keepVersions?: number | undefined;
  readonly retentionDays?: number | undefined;
}

/** What `setPolicy` takes: every field optional, an absent one is its default. */
export interface WorkspacePolicyInput {
  readonly allowedTypes?: readonly string[] | undefined;
  readonly maxUploadBytes?: number | undefined;
  readonly defaultVisibility?: Visibility | undefined;
  readonly stripImageMetadata?: boolean | undefined;
  readonly keepVersions?: number | undefined;
  readonly retentionDays?: number | undefined;
}

export const MAX_ALLOWED_TYPES = 100;

export const DEFAULT_KEEP_VERSIONS = 5;
export const MAX_KEEP_VERSIONS = 100;
export const DEFAULT_RETENTION_DAYS = 7;
export const MAX_RETENTION_DAYS = 365;

/**
 * Detail field of the refusal of a file whose sniffed type the policy does not
 * allow: transports that have a status for it (HTTP 415) recognise it by this.
 */
export const UNSUPPORTED_MEDIA_TYPE_FIELD = 'mediaType';

/** `image/png` or `image/*`, lower case, RFC 6838 characters. */
const TYPE_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/([a-z0-9][a-z0-9!#$&^_.+-]{0,126}|\*)$/;

/** The policy of a workspace that never set one. */
export function defaultPolicy(serverMaxBytes: number): WorkspacePolicy {
  return Object.freeze({
    allowedTypes: Object.freeze([]),
    maxUploadBytes: serverMaxBytes,
    defaultVisibility: 'public',
    stripImageMetadata: false,
    keepVersions: DEFAULT_KEEP_VERSIONS,
    retentionDays: DEFAULT_RETENTION_DAYS,
  });
}

/** The policy in force: the stored one, with the server's maximum where it named none or a larger one. */
export function effectivePolicy(stored: StoredWorkspacePolicy | undefined, serverMaxBytes: number): WorkspacePolicy {
  if (stored === undefined) return defaultPolicy(serverMaxBytes);
  return Object.freeze({
    allowedTypes: Object.freeze([...stored.allowedTypes]),
    maxUploadBytes: Math.min(stored.maxUploadBytes ?? serverMaxBytes, serverMaxBytes),
    defaultVisibility: stored.defaultVisibility,
    stripImageMetadata: stored.stripImageMetadata === true,
    keepVersions: stored.keepVersions ?? DEFAULT_KEEP_VERSIONS,
    retentionDays: stored.retentionDays ?? DEFAULT_RETENTION_DAYS,
  });
}

/** Validates a caller's policy; duplicates are dropped, order kept. */
export function validatePolicy(input: WorkspacePolicyInput, serverMaxBytes: number): StoredWorkspacePolicy {
  if (typeof input !== 'object' || input === null) throw invalidArgument('policy', 'must be an object');
  const allowedTypes = input.allowedTypes ?? [];
  if (!Array.isArray(allowedTypes)) throw invalidArgument('allowedTypes', 'must be a list of media types');
  if (allowedTypes.length > MAX_ALLOWED_TYPES) throw invalidArgument('allowedTypes', `must list at most ${MAX_ALLOWED_TYPES} types`);
  for (const type of allowedTypes) {
    if (typeof type !== 'string' || !TYPE_PATTERN.test(type))
      throw invalidArgument(
        'allowedTypes',
        `"${String(type).slice(0, 100)}" is not a media type like "image/png" or "image/*" (lower case)`,
      );
  }
  const max = input.maxUploadBytes;
  if (max !== undefined && (!Number.isSafeInteger(max) || max < 0 || max > serverMaxBytes)) {
    throw invalidArgument('maxUploadBytes', `must be an integer from 0 to the server's maximum, ${serverMaxBytes}`);
  }
  const strip = input.stripImageMetadata ?? false;
  if (typeof strip !== 'boolean') throw invalidArgument('stripImageMetadata', 'must be true or false');
  const keepVersions = wholeNumber(input.keepVersions, 'keepVersions', DEFAULT_KEEP_VERSIONS, MAX_KEEP_VERSIONS);
  const retentionDays = wholeNumber(input.retentionDays, 'retentionDays', DEFAULT_RETENTION_DAYS, MAX_RETENTION_DAYS);
  return Object.freeze({
    allowedTypes: Object.freeze([...new Set(allowedTypes)]),
    ...(max === undefined ? {} : { maxUploadBytes: max }),
    defaultVisibility: validateVisibility(input.defaultVisibility, 'defaultVisibility') ?? 'public',
    // Stored only when on: policies stored before the field read as off.
    ...(strip ? { stripImageMetadata: true } : {}),
    // Stored only when not the default, like stripImageMetadata: older policies read the same.
    ...(keepVersions === DEFAULT_KEEP_VERSIONS ? {} : { keepVersions }),
    ...(retentionDays === DEFAULT_RETENTION_DAYS ? {} : { retentionDays }),
  });
}

function wholeNumber(value: unknown, field: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max)
    throw invalidArgument(field, `must be a whole number from 0 to ${max}`);
  return value;
}

/** Whether a workspace keeps replaced files and deleted assets at all, and how many versions. */
export function versionsKept(policy: WorkspacePolicy): number {
  return policy.retentionDays === 0 ? 0 : policy.keepVersions;
}

/** How long, in milliseconds, versions and trashed assets are kept. */
export function retentionMs(policy: WorkspacePolicy): number {
  return policy.retentionDays * 24 * 60 * 60 * 1000;
}

/** Refuses a sniffed type the policy does not allow (`invalid_argument`, marked for HTTP 415). */
export function admitType(policy: WorkspacePolicy, type: string): void {
  if (policy.allowedTypes.length === 0) return;
  const topLevel = `${type.slice(0, type.indexOf('/'))}/*`;
  if (policy.allowedTypes.some((allowed) => allowed === type || allowed === topLevel)) return;
  throw new SwitchyardError(
    'invalid_argument',
    `files of type ${type} are not allowed in this workspace (allowed: ${policy.allowedTypes.join(', ')}); nothing was stored`,
    [{ field: UNSUPPORTED_MEDIA_TYPE_FIELD, reason: `the file's content is ${type}, which the workspace policy does not allow` }],
  );
}
