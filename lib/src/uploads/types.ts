import type { Principal } from '../auth/principal.js';
import type { ByteSource } from '../assets/types.js';
import type { UploadIntent } from '../ports/upload-store.js';
import type { Visibility } from '../assets/visibility.js';

/** Digest algorithms a client may check each appended run of bytes with (tus checksum extension). */
export const UPLOAD_CHECKSUM_ALGORITHMS = ['sha1', 'sha256'] as const;
export type UploadChecksumAlgorithm = (typeof UPLOAD_CHECKSUM_ALGORITHMS)[number];

export interface UploadChecksum {
  readonly algorithm: UploadChecksumAlgorithm;
  /** The digest of the bytes of this one append. */
  readonly digest: Uint8Array;
}

/** What the client says about the file (filename, label, visibility, an asset to replace); every field is optional. */
export type UploadIntentInput = UploadIntent;

export interface CreateUploadInput {
  /** Total size in bytes; absent: the client declares it later (with an append). */
  readonly length?: number | undefined;
  readonly intent?: UploadIntentInput | undefined;
  /**
   * `partial`: a piece of a later concatenation, never an asset on its own.
   * `final`: the upload is the concatenation of these complete partial uploads, in order; it finishes at once.
   */
  readonly concat?: 'partial' | { readonly final: readonly string[] } | undefined;
}

export interface AppendInput {
  /** Where the bytes start: must equal the upload's offset. */
  readonly offset: number;
  readonly body: ByteSource;
  /** The total size, for an upload created without one. */
  readonly length?: number | undefined;
  /** When given, the bytes are kept only if they match it, and only all of them. */
  readonly checksum?: UploadChecksum | undefined;
}

/** A resumable upload as callers see it. */
export interface Upload {
  /** `up_…` */
  readonly id: string;
  readonly offset: number;
  /** Absent while the client defers it. */
  readonly length: number | undefined;
  readonly partial: boolean;
  readonly filename: string | undefined;
  readonly label: string | undefined;
  readonly visibility: Visibility | undefined;
  readonly replace: string | undefined;
  readonly createdAt: Date;
  /** Past this time an unfinished upload is gone. */
  readonly expiresAt: Date;
  /** Once the upload is finished: the asset it made or replaced. */
  readonly assetId: string | undefined;
}

/**
 * Resumable uploads (the model behind tus): create an upload, append runs of
 * bytes at its offset from any instance, and the upload becomes an asset, or
 * replaces one's file, once its last byte is stored. A run cut short by a
 * dropped connection keeps the bytes that arrived, unless it carried a
 * checksum. Every call needs `assets:write`, within the caller's workspace.
 */
export interface ResumableUploads {
  create(principal: Principal, input: CreateUploadInput): Promise<Upload>;
  append(principal: Principal, id: string, input: AppendInput): Promise<Upload>;
  get(principal: Principal, id: string): Promise<Upload>;
  /** Ends the upload and removes its bytes; a finished upload's asset stays. */
  terminate(principal: Principal, id: string): Promise<void>;
}
