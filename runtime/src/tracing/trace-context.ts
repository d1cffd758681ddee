import { randomFillSync } from 'node:crypto';

/** The W3C Trace Context header (https://www.w3.org/TR/trace-context/). */
export const TRACEPARENT_HEADER = 'traceparent';
/**
 * The response header in which the service names the API key that
 * authenticated a unary call (its id, `key_…`, never its secret), so the
 * gateway can put it in its access line and span as the service does in its
 * call line.
 */
export const KEY_ID_HEADER = 'switchyard-key-id';

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

// Ids are cut from a pool of random bytes refilled 4 KiB at a time: two ids per request and per call
// would otherwise be a randomBytes call each, and building them from randomUUID (its string put
// together character by character, then two more copies) allocates more.
// Justified by bench/tools/in-process-calls.ts (bench/hand-written-parts.md#trace-ids).
const pool = Buffer.allocUnsafe(4096);
let poolUsed = pool.length;

/** `bytes` random bytes as lower-case hex, never all zero (W3C Trace Context forbids it). */
function randomHex(bytes: number): string {
  for (;;) {
    if (poolUsed + bytes > pool.length) {
      randomFillSync(pool);
      poolUsed = 0;
    }
    const hex = pool.toString('hex', poolUsed, (poolUsed += bytes));
    if (hex !== ALL_ZERO[bytes]) return hex;
  }
}
const ALL_ZERO: Record<number, string> = { 8: '0'.repeat(16), 16: '0'.repeat(32) };

export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);
