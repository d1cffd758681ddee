import { randomUUID } from 'node:crypto';

/** The W3C Trace Context header (https://www.w3.org/TR/trace-context/). */
export const TRACEPARENT_HEADER = 'traceparent';

export interface TraceParent {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lower-case hex digits, not all zero: the caller's span. */
  readonly spanId: string;
  readonly sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** A valid `traceparent`, or undefined (absent, malformed, version ff, all-zero ids): then a new trace begins. */
export function parseTraceparent(header: string | undefined): TraceParent | undefined {
  if (header === undefined) return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version 00 has exactly four fields; a later version may append more.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined;
  return { traceId: traceId!, spanId: spanId!, sampled: (parseInt(flags!, 16) & 1) === 1 };
}

export function formatTraceparent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

// From randomUUID, which draws on a cached pool of random bytes: two ids per request and per call
// would otherwise be two randomBytes calls on the hot path. A v4 UUID's 122 random bits are ample.
export const newTraceId = (): string => randomUUID().replaceAll('-', '');
export const newSpanId = (): string => randomUUID().replaceAll('-', '').slice(0, 16);
