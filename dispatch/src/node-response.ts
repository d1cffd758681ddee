import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { DispatchContext, NativeContext } from './context.js';
import { ERROR_HEADERS, type ErrorAnswer } from './error-answer.js';
import { JSON_TYPE, TEXT_TYPE, resultKind } from './handler-result.js';

/** Writes what a chain returned to a node:http response (the node and Express adapters). */
export function writeResult(res: ServerResponse, result: unknown, ctx: DispatchContext<NativeContext>): void {
  switch (resultKind(result)) {
    case 'error':
      return writeError(res, result as ErrorAnswer);
    case 'response':
      return writeResponse(res, result as Response, ctx);
    case 'native':
      // The handler answered through `res` itself.
      return;
    case 'text':
      return writeBody(res, ctx, TEXT_TYPE, result as string);
    case 'json':
      return writeBody(res, ctx, JSON_TYPE, JSON.stringify(result));
  }
}

/** A response already begun cannot honestly become an error: the connection is cut, so the client sees a truncated body rather than a wrong one. */
export function writeError(res: ServerResponse, answer: ErrorAnswer): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(answer.status, { ...ERROR_HEADERS, 'content-length': Buffer.byteLength(answer.text) });
  res.end(answer.text);
}

function writeBody(res: ServerResponse, ctx: DispatchContext<NativeContext>, contentType: string, body: string): void {
  if (res.headersSent) return;
  for (const [name, value] of ctx.headers) res.appendHeader(name, value);
  if (!res.hasHeader('content-type')) res.setHeader('content-type', contentType);
  res.writeHead(ctx.status, { 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function writeResponse(res: ServerResponse, response: Response, ctx: DispatchContext<NativeContext>): void {
  if (res.headersSent) return;
  for (const [name, value] of response.headers) if (name !== 'set-cookie') res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  for (const [name, value] of ctx.headers) res.appendHeader(name, value);
  res.statusCode = response.status;
  if (response.body === null) return void res.end();
  Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>)
    .on('error', () => res.destroy())
    .pipe(res);
}
