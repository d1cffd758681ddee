import {
  Code,
  ConnectError,
  createConnectRouter,
  type ConnectRouter,
  type ConnectRouterOptions,
  type ContextValues,
  type Interceptor,
} from '@connectrpc/connect';
import {
  compressionBrotli,
  compressionGzip,
  universalRequestFromNodeRequest,
  universalResponseToNodeResponse,
} from '@connectrpc/connect-node';
import type { UniversalHandler, UniversalServerResponse } from '@connectrpc/connect/protocol';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, invalidRequest, methodNotAllowed } from './http/api-error.js';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ConnectAdapterOptions extends ConnectRouterOptions {
  readonly routes: (router: ConnectRouter) => void;
  /** For paths that name no RPC. */
  readonly fallback: NodeHandler;
  readonly contextValues: (req: IncomingMessage) => ContextValues;
  /** Answers a refusal in the contract's error shape (which Connect clients read as an error too). */
  readonly refuse: (res: ServerResponse, error: ApiError, headers?: Record<string, string>) => void;
  /** A handler that failed outside any response (a bug): logged, never thrown. */
  readonly onHandlerFailure: (error: unknown) => void;
}

/**
 * connect-node's `connectNodeAdapter`, with three defects on hostile input
 * fixed where they arise:
 *
 * - a wrong HTTP method or content type is answered 405 / 400 with the error
 *   body, not a bare status line;
 * - a request message that does not decode (bytes that are not protobuf) is
 *   `invalid_argument`: connect-es reports its own decoding failure as
 *   `internal` (500), the same code it uses for a server's broken response;
 * - the same for streamed request messages (uploads), through an interceptor,
 *   and for gRPC-Web, whose status travels in a trailer frame of the body.
 */
/** The RPC paths (and their HTTP methods) to route to `handle`. */
export interface ConnectEndpoints {
  readonly routes: readonly { readonly path: string; readonly methods: readonly string[] }[];
  readonly handle: NodeHandler;
}

export function connectAdapter(options: ConnectAdapterOptions): ConnectEndpoints {
  const { routes, fallback, contextValues, refuse, onHandlerFailure, ...routerOptions } = options;
  // As connect-node's adapter: gzip and brotli request bodies are accepted.
  const router = createConnectRouter({
    acceptCompression: [compressionGzip, compressionBrotli],
    ...routerOptions,
    interceptors: [decodingFailuresAreInvalid, ...(routerOptions.interceptors ?? [])],
  });
  routes(router);
  const handlers = new Map<string, UniversalHandler>();
  for (const handler of router.handlers) handlers.set(handler.requestPath, handler);

  const rpcRoutes = router.handlers.map((handler) => ({ path: handler.requestPath, methods: handler.allowedMethods }));
  const handle: NodeHandler = (req, res) => {
    const handler = handlers.get((req.url ?? '').split('?', 1)[0]!);
    if (handler === undefined) return fallback(req, res);
    if (!handler.allowedMethods.includes(req.method ?? '')) {
      return refuse(res, methodNotAllowed(req.method ?? '', handler.allowedMethods), { allow: handler.allowedMethods.join(', ') });
    }
    const contentType = req.headers['content-type'] ?? '';
    if (!handler.supportedContentType(contentType)) {
      return refuse(
        res,
        invalidRequest(
          'content-type',
          `${contentType ? JSON.stringify(contentType) : 'none'} is not a content type of the Connect, gRPC-Web or gRPC protocols`,
        ),
      );
    }
    handler(universalRequestFromNodeRequest(req, res, undefined, contextValues(req)))
      .then(unaryDecodingFailureIsInvalid)
      .then(grpcWebDecodingFailureIsInvalid)
      .then((response) => universalResponseToNodeResponse(response, res))
      .catch((reason: unknown) => {
        // The client went away mid-response: nothing to report.
        if (ConnectError.from(reason).code === Code.Aborted) return;
        onHandlerFailure(reason);
      });
  };
  return { routes: rpcRoutes, handle };
}

/** Messages with which connect-es reports a request body it could not decode (pinned: @connectrpc/connect 2.1.2). */
const DECODING_FAILURE =
  /^(parse binary:|decompression failed|received parsed JSON request body|received compressed envelope|invalid envelope)/;

function isDecodingFailure(error: unknown): error is ConnectError {
  return error instanceof ConnectError && error.code === Code.Internal && DECODING_FAILURE.test(error.rawMessage);
}

function asInvalid(error: ConnectError): ConnectError {
  return new ConnectError(`the request message does not decode: ${error.rawMessage}`, Code.InvalidArgument);
}

/** Streamed request messages are decoded as the handler reads them, inside the interceptors. */
const decodingFailuresAreInvalid: Interceptor = (next) => async (req) => {
  if (!req.stream) return next(req);
  const messages = req.message;
  async function* mapped(): AsyncGenerator<unknown> {
    try {
      yield* messages;
    } catch (error) {
      throw isDecodingFailure(error) ? asInvalid(error) : error;
    }
  }
  return next({ ...req, message: mapped() as typeof messages });
};

/**
 * A unary request is decoded before any interceptor runs; its failure comes
 * back as a 500 response with a Connect error body, rewritten here.
 */
async function unaryDecodingFailureIsInvalid(response: UniversalServerResponse): Promise<UniversalServerResponse> {
  if (response.status !== 500 || response.body === undefined || !(Symbol.asyncIterator in response.body)) return response;
  // An error body is one small JSON document.
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  const failure = new ConnectError(messageOf(bytes) ?? '', Code.Internal);
  if (!isDecodingFailure(failure)) return { ...response, body: once(bytes) };
  const rewritten = Buffer.from(JSON.stringify({ code: 'invalid_argument', message: asInvalid(failure).rawMessage }));
  const header = new Headers(response.header);
  header.set('content-length', String(rewritten.length));
  return { ...response, status: 400, header, body: once(rewritten) };
}

/** The message of a Connect error body whose code is `internal`. */
function messageOf(bytes: Buffer): string | undefined {
  try {
    const body = JSON.parse(bytes.toString('utf8')) as { code?: unknown; message?: unknown };
    return body.code === 'internal' && typeof body.message === 'string' ? body.message : undefined;
  } catch {
    return undefined;
  }
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/**
 * gRPC-Web decodes even a unary request before the interceptors; its failure
 * is a trailer frame (flag 0x80) at the end of a 200 body with grpc-status 13,
 * rewritten here to 3 (INVALID_ARGUMENT). Other frames pass through as they
 * come, whole, so a file streams as before.
 */
function grpcWebDecodingFailureIsInvalid(response: UniversalServerResponse): UniversalServerResponse {
  const type = new Headers(response.header).get('content-type') ?? '';
  if (!type.startsWith('application/grpc-web') || response.body === undefined || !(Symbol.asyncIterator in response.body)) return response;
  return { ...response, body: rewriteTrailerFrames(response.body) };
}

async function* rewriteTrailerFrames(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let pending = Buffer.alloc(0);
  for await (const chunk of body) {
    pending = pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([pending, chunk]);
    while (pending.length >= 5 && pending.length >= 5 + pending.readUInt32BE(1)) {
      const end = 5 + pending.readUInt32BE(1);
      const frame = pending.subarray(0, end);
      pending = pending.subarray(end);
      yield (frame[0]! & 0x80) === 0 ? frame : rewriteTrailer(frame);
    }
  }
  if (pending.length > 0) yield pending;
}

function rewriteTrailer(frame: Buffer): Buffer {
  const text = frame.subarray(5).toString('latin1');
  const status = /^grpc-status:\s*(\d+)\s*$/im.exec(text)?.[1];
  const encoded = /^grpc-message:\s*(.*?)\s*$/im.exec(text)?.[1] ?? '';
  let message: string;
  try {
    message = decodeURIComponent(encoded);
  } catch {
    return frame;
  }
  const failure = new ConnectError(message, Code.Internal);
  if (status !== String(Code.Internal) || !isDecodingFailure(failure)) return frame;
  const trailer = Buffer.from(
    `grpc-status: ${Code.InvalidArgument}\r\ngrpc-message: ${encodeURIComponent(asInvalid(failure).rawMessage)}\r\n`,
    'latin1',
  );
  const head = Buffer.alloc(5);
  head[0] = 0x80;
  head.writeUInt32BE(trailer.length, 1);
  return Buffer.concat([head, trailer]);
}
