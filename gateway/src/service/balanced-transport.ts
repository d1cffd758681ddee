import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, type ContextValues, type StreamResponse, type Transport, type UnaryResponse } from '@connectrpc/connect';
import { systemTime, type TimeSource } from '@switchyard/core';
import { isIdempotentRead } from './idempotent-reads.js';
import type { PoolMember } from './service-pool.js';

/** What the balanced transport needs of the pool (service-pool.ts). */
export interface Balancer {
  /** The next connection, other than `besides`; undefined when there is none. */
  pick(besides?: PoolMember): PoolMember | undefined;
  /** A call found the member's connection dead. */
  fail(member: PoolMember, reason: string): void;
  /** A call found no connection at all (no address resolved yet). */
  starved(): void;
  /** Settles once the first resolution is done: calls made before it wait for it, as on a gRPC channel still connecting. */
  readonly resolved: Promise<void>;
}

export interface BalancedTransportOptions {
  /** Counts a read sent again on another connection. */
  readonly onRetry?: (() => void) | undefined;
  /** The clock a retry's remaining deadline is measured on (systemTime). */
  readonly time?: TimeSource | undefined;
}

/**
 * Connect's `Transport` over several service connections, as gRPC's
 * round_robin policy does: each call goes to the next healthy connection.
 * A call whose connection died (the service never answered it) marks that
 * connection unhealthy; an idempotent read (idempotent-reads.ts) is then sent
 * once more on another, with what is left of its deadline. Anything else,
 * uploads and streams included, fails with a plain `unavailable`: a write
 * may have happened, and a stream may have delivered part of its messages.
 */
export function createBalancedTransport(balancer: Balancer, options: BalancedTransportOptions = {}): Transport {
  const time = options.time ?? systemTime;
  const now = (): number => time.now().getTime();
  async function unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: MessageInitShape<I>,
    contextValues?: ContextValues,
  ): Promise<UnaryResponse<I, O>> {
    let first = balancer.pick();
    first ??= await choose(balancer);
    const started = now();
    try {
      return await first.transport.unary(method, signal, timeoutMs, header, input, contextValues);
    } catch (error) {
      if (!connectionFailed(error)) throw error;
      balancer.fail(first, error.rawMessage);
      const second = isIdempotentRead(method) ? balancer.pick(first) : undefined;
      if (second === undefined) throw unavailable(error);
      options.onRetry?.();
      const left = timeoutMs === undefined ? undefined : Math.max(1, timeoutMs - (now() - started));
      try {
        return await second.transport.unary(method, signal, left, header, input, contextValues);
      } catch (again) {
        throw settle(balancer, second, again);
      }
    }
  }

  async function stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: AsyncIterable<MessageInitShape<I>>,
    contextValues?: ContextValues,
  ): Promise<StreamResponse<I, O>> {
    let member = balancer.pick();
    member ??= await choose(balancer);
    try {
      return await member.transport.stream(method, signal, timeoutMs, header, input, contextValues);
    } catch (error) {
      throw settle(balancer, member, error);
    }
  }

  return { unary, stream };
}

/** A connection once the first resolution is done; none then is `unavailable`. */
async function choose(balancer: Balancer): Promise<PoolMember> {
  await balancer.resolved;
  const member = balancer.pick();
  if (member !== undefined) return member;
  balancer.starved();
  throw new ConnectError('no service address resolved', Code.Unavailable);
}

/** The error a failed call ends with: a dead connection is reported and becomes a plain `unavailable`. */
function settle(balancer: Balancer, member: PoolMember, error: unknown): unknown {
  if (!connectionFailed(error)) return error;
  balancer.fail(member, error.rawMessage);
  return unavailable(error);
}

function unavailable(cause: ConnectError): ConnectError {
  return cause.code === Code.Unavailable
    ? cause
    : new ConnectError(`the service connection failed: ${cause.rawMessage}`, Code.Unavailable, undefined, undefined, cause);
}

/**
 * The call failed with its connection: the service sent no status for it
 * (no `grpc-status`: not an answer of the service's) and the code is one a
 * refused, reset or closed connection gives (grpc-errors.ts, Connect's
 * node-error mapping). A caller's cancellation or deadline is not one.
 */
export function connectionFailed(error: unknown): error is ConnectError {
  if (!(error instanceof ConnectError) || error.metadata.has('grpc-status')) return false;
  return error.code === Code.Unavailable || error.code === Code.Aborted;
}
