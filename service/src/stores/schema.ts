import type { Generated } from 'kysely';

/**
 * Table types for Kysely, shared by both dialects.
 *
 * Times are epoch milliseconds in BIGINT columns: exact to the millisecond and
 * UTC by construction on MySQL and SQLite alike, with no driver time-zone or
 * fractional-seconds handling to get wrong.
 */
export interface RoutesTable {
  id: string;
  workspace: string;
  method: string;
  path: string;
  shape: string;
  /** Hex SHA-256 of `shape`: the unique key indexes this, as a 1024-character shape would exceed MySQL's index length. */
  shape_hash: string;
  /** JSON array of strings. */
  middleware: string;
  handler: string;
  /** The team or tool that manages the route; '' for none. */
  owner: string;
  created_at: number;
  updated_at: number;
  /** The workspace revision this row was last written at. */
  revision: number;
}

/** Each workspace's route-table revision (absent: 0). */
export interface RouteRevisionsTable {
  workspace: string;
  revision: number;
}

/** The change log: one row per change; a revision holds one change or more, ordered by `seq`. */
export interface RouteChangesTable {
  workspace: string;
  revision: number;
  /** The change's place inside its revision, from 0. */
  seq: number;
  kind: 'create' | 'update' | 'delete';
  route_id: string;
  /** The route before the change, a JSON row (as `routes`, without shape_hash); NULL for a create or when unknown. */
  before_record: string | null;
  /** The route as written, a JSON row; NULL for a delete. */
  after_record: string | null;
  /** Epoch milliseconds; 0 when unknown (deletes logged before 0009). */
  changed_at: number;
  /** The caller's subject; '' when unknown. */
  actor: string;
  owner: string;
}

/** The columns of a file: the current one (assets, asset_trash) or a kept one (asset_versions). */
interface FileColumns {
  blob_id: string;
  blob_key: string;
  type: string;
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  pages: number | null;
  placeholder: string | null;
  facts_version: number;
  uploaded_at: number;
  /** Who uploaded the file (a token's `sub`); '' for files from before 0011. */
  uploaded_by: Generated<string>;
}

/** A replaced file kept as a version of its asset (live or trashed). */
export interface AssetVersionsTable extends FileColumns {
  id: string;
  workspace: string;
  asset_id: string;
  /** The asset's name while the file was current. */
  name: string;
  replaced_at: number;
}

/** A deleted asset: its `assets` row, and who deleted it when. */
export interface AssetTrashTable extends Omit<AssetsTable, 'uploaded_by'> {
  uploaded_by: Generated<string>;
  deleted_at: number;
  deleted_by: string;
}

export interface AssetsTable {
  id: string;
  workspace: string;
  label: string;
  blob_id: string;
  blob_key: string;
  type: string;
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  created_at: number;
  uploaded_at: number;
  version: number;
  visibility: string;
  link_epoch: number;
  /** The client's file name; "" when none. */
  name: string;
  /** `nameKey(name)` (NFC, lower case, at most 255 characters): what `q` prefixes are ranges on. */
  name_lower: string;
  /** Media facts (NULL: unknown). */
  duration_ms: number | null;
  pages: number | null;
  placeholder: string | null;
  /** MEDIA_FACTS_VERSION of the describer that read them; 0: none did. */
  facts_version: number;
  /** Who uploaded the current file; '' for files from before 0011 (not part of the record: versions name it). */
  uploaded_by: Generated<string>;
}

/** Each workspace's asset revision (absent: 0). */
export interface AssetRevisionsTable {
  workspace: string;
  revision: number;
}

/** The asset change log: one row per change; a batch delete's rows share a revision. */
export interface AssetChangesTable {
  workspace: string;
  revision: number;
  /** The change's place within its revision. */
  seq: number;
  type: string;
  asset_id: string;
  actor: string;
  /** Epoch milliseconds. */
  time: number;
  /** The record as written, JSON; NULL for a delete. */
  record: string | null;
  /** A replace's displaced file, JSON `{type, size, sha256}`; NULL otherwise. */
  previous: string | null;
  /** JSON `{reason, versionIds?}` for restores and purges; NULL otherwise (and before 0011). */
  detail: Generated<string | null>;
}

export interface WorkspacePoliciesTable {
  workspace: string;
  /** JSON array of media types. */
  allowed_types: string;
  /** NULL: the server's maximum. */
  max_upload_bytes: number | null;
  default_visibility: string;
  /** 1: uploaded images are stored without EXIF, XMP and IPTC. */
  strip_image_metadata: number;
  /** NULL: the default (before 0011, or set to it). */
  keep_versions: Generated<number | null>;
  retention_days: Generated<number | null>;
}

export interface ResumableUploadsTable {
  id: string;
  workspace: string;
  /** NULL while the client defers it. */
  upload_length: number | null;
  upload_offset: number;
  /** JSON array of {key, size}. */
  parts: string;
  is_partial: number;
  /** JSON object: filename, label, visibility, replace. */
  intent: string;
  created_at: number;
  expires_at: number;
  asset_id: string | null;
  /** When the current finish claim was taken; NULL when none is held. */
  finishing_since: number | null;
  /** The append lease's holder and when it was taken or last renewed. */
  appending_by: string | null;
  appending_since: number | null;
}

export interface ApiKeysTable {
  id: string;
  workspace: string;
  name: string;
  /** Space-separated. */
  scopes: string;
  created_by: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** Hex SHA-256 of the current secret; never the secret. */
  secret_digest: string;
  previous_digest: string | null;
  previous_valid_until: number | null;
}

export interface WebhookEndpointsTable {
  id: string;
  workspace: string;
  url: string;
  /** JSON array of event types and patterns. */
  events: string;
  description: string;
  /** 1 or 0. */
  enabled: number;
  created_at: number;
  updated_at: number;
  /** `whsec_…`: it signs, so it is kept; never logged or answered after create and rotate. */
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  failing_since: number | null;
}

export interface WebhookMessagesTable {
  id: string;
  workspace: string;
  type: string;
  /** The exact JSON body sent. */
  body: string;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  workspace: string;
  webhook_id: string;
  message_id: string;
  status: string;
  tries: number;
  /** Due (pending) or leased until (claimed); null once final. */
  next_attempt_at: number | null;
  created_at: number;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  seq: number;
  at: number;
  status_code: number;
  duration_ms: number;
  error: string;
  response: string;
}

export interface Database {
  routes: RoutesTable;
  route_revisions: RouteRevisionsTable;
  route_changes: RouteChangesTable;
  assets: AssetsTable;
  asset_revisions: AssetRevisionsTable;
  asset_changes: AssetChangesTable;
  asset_versions: AssetVersionsTable;
  asset_trash: AssetTrashTable;
  workspace_policies: WorkspacePoliciesTable;
  resumable_uploads: ResumableUploadsTable;
  api_keys: ApiKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
