import type { IncomingMessage } from 'node:http';
import { ApiError, contentTooLarge, invalidRequest } from './api-error.js';

/**
 * Reads a JSON object body of at most `limit` bytes. Refused with 400: another
 * content type (or a charset other than UTF-8), an empty body, invalid JSON,
 * anything but an object at the top. A body over the limit is 413, known from
 * Content-Length before a byte is read, or found while reading.
 */
export async function readJsonObject(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const contentType = req.headers['content-type'] ?? '';
  const [mediaType = '', ...params] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json') {
    throw invalidRequest('content-type', `expected application/json, got ${contentType ? JSON.stringify(contentType) : 'none'}`);
  }
  const charset = params.find((param) => param.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw invalidRequest('content-type', `charset ${charset} is not supported; send UTF-8`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await readAtMost(req, limit));
  } catch (error) {
    if (error instanceof TypeError) throw invalidRequest('body', 'is not valid UTF-8');
    throw error;
  }
  if (text.trim() === '') throw invalidRequest('body', 'is empty; send a JSON object');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalidRequest('body', `is not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidRequest('body', 'must be a JSON object');
  return parsed as Record<string, unknown>;
}

/**
 * Collects the body, stopping (without destroying the request, so the 413 can
 * still be sent) as soon as it passes `limit`.
 */
function readAtMost(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (): void => {
      req.off('data', onData).off('end', onEnd).off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      settle();
      req.pause();
      reject(tooLarge(limit));
    };
    const onEnd = (): void => {
      settle();
      resolve(Buffer.concat(chunks, size));
    };
    const onClose = (): void => {
      settle();
      reject(new ApiError('canceled', 'the client closed the connection before the body was complete'));
    };
    req.on('data', onData).once('end', onEnd).once('close', onClose);
  });
}

function tooLarge(limit: number): ApiError {
  return contentTooLarge('body', `the JSON body is larger than the limit of ${limit} bytes`);
}
