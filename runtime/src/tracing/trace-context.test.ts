import test from 'ava';
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent } from './trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

test('a version-00 traceparent parses; its sampled flag is read', (t) => {
  t.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-01`), { traceId: TRACE, spanId: SPAN, sampled: true });
  t.deepEqual(parseTraceparent(` 00-${TRACE}-${SPAN}-00 `), { traceId: TRACE, spanId: SPAN, sampled: false });
  t.deepEqual(
    parseTraceparent(`01-${TRACE}-${SPAN}-01-future`),
    { traceId: TRACE, spanId: SPAN, sampled: true },
    'a later version may append fields',
  );
});

test('anything else starts a new trace: absent, malformed, upper case, zero ids, version ff, extra fields on 00', (t) => {
  for (const header of [
    undefined,
    '',
    'nonsense',
    `00-${TRACE.toUpperCase()}-${SPAN}-01`,
    `00-${'0'.repeat(32)}-${SPAN}-01`,
    `00-${TRACE}-${'0'.repeat(16)}-01`,
    `ff-${TRACE}-${SPAN}-01`,
    `00-${TRACE}-${SPAN}-01-extra`,
    `00-${TRACE.slice(1)}-${SPAN}-01`,
  ]) {
    t.is(parseTraceparent(header), undefined, String(header));
  }
});

test('new ids have the W3C shapes and are never zero; formatting round-trips', (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const traceId = newTraceId();
    const spanId = newSpanId();
    t.regex(traceId, /^[0-9a-f]{32}$/);
    t.regex(spanId, /^[0-9a-f]{16}$/);
    seen.add(traceId);
    if (i === 0) t.deepEqual(parseTraceparent(formatTraceparent(traceId, spanId, true)), { traceId, spanId, sampled: true });
  }
  t.is(seen.size, 1000);
});
