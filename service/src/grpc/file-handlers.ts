import { once } from 'node:events';
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { AssetService, TransformQuery } from '@switchyard/core';
import { handOver, hasFreshChunks } from '@switchyard/runtime';
import type { FileServiceServer, ReadFileRequest, ReadFileResponse } from '../gen/switchyard/v1/files.js';
import { fileInfoToMessage, rangeFromRequest } from './convert.js';
import type { Rpc } from './rpc.js';

/** The request's transform as the query strings the core validates; none when no field is set. */
function transformQuery(request: ReadFileRequest): TransformQuery | undefined {
  const transform = request.transform;
  if (transform === undefined) return undefined;
  const text = (value: number | string | undefined) => (value === undefined ? undefined : String(value));
  return {
    w: text(transform.w),
    h: text(transform.h),
    fit: text(transform.fit),
    format: text(transform.format),
    q: text(transform.q),
    frame: text(transform.frame),
  };
}

/** Chunk size on the wire: well under the 4 MiB message limit, large enough to be cheap. */
export const FILE_CHUNK_BYTES = 64 * 1024;

export function fileHandlers(assets: AssetService, rpc: Rpc): FileServiceServer {
  return {
    readFile: rpc.publicServerStream<ReadFileRequest, ReadFileResponse>('ReadFile', async (call) => {
      const request = call.request;
      const file = await assets.openFile(request.path, {
        range: rangeFromRequest(request),
        infoOnly: request.infoOnly,
        query: request.query,
        transform: transformQuery(request),
      });
      call.write({ info: fileInfoToMessage(file) });
      if (file.bytes && file.bytes.length <= FILE_CHUNK_BYTES) {
        // In memory already and one message long (a small file from the file cache): written as is, its body
        // never made. Justified by file-serve-16kib (bench/hand-written-parts.md#small-file-in-one-message).
        call.write({ chunk: file.bytes });
      } else if (file.body) {
        await streamChunks(file.body, call);
      }
    }),
  };
}

/** Writes the bytes in bounded messages, waiting for `drain` whenever the client is slower than the store. */
export async function streamChunks<Req, Res extends { chunk?: Buffer | undefined }>(
  body: AsyncIterable<Buffer> & { destroy(): void },
  call: ServerWritableStream<Req, Res>,
): Promise<void> {
  const stop = new AbortController();
  const onCancel = (): void => stop.abort();
  call.once('cancelled', onCancel);
  // Fresh reads (the disk store's) are handed over: the in-process channel then passes them on uncopied.
  const fresh = hasFreshChunks(body);
  try {
    for await (const block of body) {
      for (let offset = 0; offset < block.length; offset += FILE_CHUNK_BYTES) {
        if (call.cancelled) return;
        const chunk = block.subarray(offset, offset + FILE_CHUNK_BYTES);
        const ok = call.write({ chunk: fresh ? handOver(chunk) : chunk } as Res);
        if (!ok) await once(call, 'drain', { signal: stop.signal });
      }
    }
  } catch (error) {
    if (!call.cancelled) throw error;
  } finally {
    call.off('cancelled', onCancel);
    body.destroy();
  }
}
