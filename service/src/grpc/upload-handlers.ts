import {
  invalidArgument,
  type Timers,
  UPLOAD_CHECKSUM_ALGORITHMS,
  type ResumableUploads,
  type Upload,
  type UploadChecksum,
  type UploadChecksumAlgorithm,
  type Visibility,
} from '@switchyard/core';
import type {
  AppendMetadata,
  AppendUploadRequest,
  CreateUploadRequest,
  GetUploadRequest,
  TerminateUploadRequest,
  TerminateUploadResponse,
  Upload as UploadMessage,
  UploadServiceServer,
} from '../gen/switchyard/v1/uploads.js';
import { optional } from './convert.js';
import type { Rpc } from './rpc.js';
import { readUploadStream } from './upload-stream.js';

export interface UploadHandlerOptions {
  /** UPLOAD_IDLE_TIMEOUT_MS: an append that goes this long without a message ends with the bytes received so far. */
  readonly uploadIdleTimeoutMs?: number | undefined;
  /** Where that timeout is scheduled (the system's timers by default). */
  readonly timers?: Timers | undefined;
}

export function uploadHandlers(uploads: ResumableUploads, rpc: Rpc, options: UploadHandlerOptions = {}): UploadServiceServer {
  const idleTimeoutMs = options.uploadIdleTimeoutMs ?? 0;
  const { timers } = options;
  return {
    createUpload: rpc.unary<CreateUploadRequest, UploadMessage>('CreateUpload', async (request, { principal }) => {
      const intent = {
        filename: optional(request.filename),
        label: optional(request.label),
        visibility: optional(request.visibility) as Visibility | undefined,
        replace: optional(request.replace),
      };
      if (request.partial && request.finalOf.length > 0)
        throw invalidArgument('final_of', 'an upload is either partial or the final concatenation, not both');
      const concat = request.finalOf.length > 0 ? { final: request.finalOf } : request.partial ? ('partial' as const) : undefined;
      return uploadToMessage(await uploads.create(principal, { length: request.length, intent, concat }));
    }),

    appendUpload: rpc.clientStream<AppendUploadRequest, UploadMessage>('AppendUpload', async (call, { principal }) => {
      const append = await readUploadStream<AppendMetadata>(call, { idleTimeoutMs, timers });
      const { id, offset, length, checksumAlgorithm, checksum } = append.metadata;
      return uploadToMessage(
        await uploads.append(principal, id, { offset, length, body: append.body, checksum: checksumOf(checksumAlgorithm, checksum) }),
      );
    }),

    getUpload: rpc.unary<GetUploadRequest, UploadMessage>('GetUpload', async (request, { principal }) =>
      uploadToMessage(await uploads.get(principal, request.id)),
    ),

    terminateUpload: rpc.unary<TerminateUploadRequest, TerminateUploadResponse>('TerminateUpload', async (request, { principal }) => {
      await uploads.terminate(principal, request.id);
      return {};
    }),
  };
}

function checksumOf(algorithm: string, digest: Buffer): UploadChecksum | undefined {
  if (algorithm === '' && digest.length === 0) return undefined;
  if (!(UPLOAD_CHECKSUM_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw invalidArgument('checksum_algorithm', `must be one of ${UPLOAD_CHECKSUM_ALGORITHMS.join(', ')} with a checksum`);
  }
  return { algorithm: algorithm as UploadChecksumAlgorithm, digest };
}

export function uploadToMessage(upload: Upload): UploadMessage {
  return {
    id: upload.id,
    offset: upload.offset,
    length: upload.length,
    partial: upload.partial,
    filename: upload.filename ?? '',
    label: upload.label ?? '',
    visibility: upload.visibility ?? '',
    replace: upload.replace ?? '',
    createdAt: upload.createdAt,
    expiresAt: upload.expiresAt,
    assetId: upload.assetId ?? '',
  };
}
