import type { DescMessage, DescMethodServerStreaming, DescService, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { createClient, type CallOptions, type Client, type Transport } from '@connectrpc/connect';

/**
 * Connect's client of `service`, whose server-streaming methods skip Connect's promise-client
 * wrapper. That wrapper runs every call and every message through async
 * generators compiled down to ES2017 helpers (its request iterable and
 * `handleStreamResponse`); the calls here do the same with native async
 * generators. Unlike Connect's wrapper, a reader that stops early returns the
 * transport's iterator: in-process, that cancels the handler and ends the call.
 * Justified by file-serve-16kib (bench/hand-written-parts.md#lean-client).
 */
export function createLeanClient<S extends DescService>(service: S, transport: Transport): Client<S> {
  const lean: Record<string, unknown> = {};
  for (const method of service.methods) {
    if (method.methodKind === 'server_streaming')
      lean[method.localName] = serverStreamingFn(transport, method as DescMethodServerStreaming<DescMessage, DescMessage>);
  }
  return Object.freeze({ ...createClient(service, transport), ...lean }) as Client<S>;
}

function serverStreamingFn<I extends DescMessage, O extends DescMessage>(transport: Transport, method: DescMethodServerStreaming<I, O>) {
  return (input: MessageInitShape<I>, options: CallOptions = {}): AsyncIterable<MessageShape<O>> => {
    // Started at once, as Connect's client does: the call is under way before the first read.
    const response = transport.stream(method, options.signal, options.timeoutMs, options.headers, oneMessage(input), options.contextValues);
    // Unread when the caller never iterates: its failure must not go unhandled.
    response.catch(() => undefined);
    return (async function* () {
      // Headers are read only for a caller that asks: in-process, they are made when first read.
      const answer = await response;
      options.onHeader?.(answer.header);
      yield* answer.message;
      options.onTrailer?.(answer.trailer);
    })();
  };
}

/**
 * The request stream of a server-streaming call: one message, as a generator
 * so a transport may end it early (`return`, `throw`) as Connect's gRPC
 * transport does. Read once: no transport here reads a request twice.
 */
async function* oneMessage<T>(message: T): AsyncGenerator<T> {
  yield message;
}
