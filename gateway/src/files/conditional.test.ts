import test from 'ava';
import type { IncomingMessage } from 'node:http';
import { isNotModified, needsValidators, preconditionFails, rangeStillValid } from './conditional.js';

const validators = { etag: '"abc"', lastModified: new Date('2025-03-01T10:00:00.750Z') };
const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

test('If-None-Match compares weakly, accepts lists and *', (t) => {
  t.true(isNotModified(request({ 'if-none-match': '"abc"' }), validators));
  t.true(isNotModified(request({ 'if-none-match': 'W/"abc"' }), validators));
  t.true(isNotModified(request({ 'if-none-match': '"x", "abc"' }), validators));
  t.true(isNotModified(request({ 'if-none-match': '*' }), validators));
  t.false(isNotModified(request({ 'if-none-match': '"abcd"' }), validators));
  t.false(isNotModified(request({ 'if-none-match': 'abc' }), validators), 'unquoted is not the tag');
});

test('If-Modified-Since counts whole seconds and only without If-None-Match', (t) => {
  t.true(isNotModified(request({ 'if-modified-since': 'Sat, 01 Mar 2025 10:00:00 GMT' }), validators));
  t.true(isNotModified(request({ 'if-modified-since': 'Sat, 01 Mar 2025 11:00:00 GMT' }), validators));
  t.false(isNotModified(request({ 'if-modified-since': 'Sat, 01 Mar 2025 09:59:59 GMT' }), validators));
  t.false(isNotModified(request({ 'if-modified-since': 'yesterday' }), validators));
  t.false(isNotModified(request({ 'if-none-match': '"other"', 'if-modified-since': 'Sat, 01 Mar 2025 11:00:00 GMT' }), validators));
  t.false(isNotModified(request({}), validators));
});

test('If-Range: a strong ETag or the exact date keeps the range', (t) => {
  t.true(rangeStillValid(request({}), validators));
  t.true(rangeStillValid(request({ 'if-range': '"abc"' }), validators));
  t.false(rangeStillValid(request({ 'if-range': 'W/"abc"' }), validators), 'weak tags never match for ranges');
  t.false(rangeStillValid(request({ 'if-range': '"old"' }), validators));
  t.true(rangeStillValid(request({ 'if-range': 'Sat, 01 Mar 2025 10:00:00 GMT' }), validators));
  t.false(rangeStillValid(request({ 'if-range': 'Sat, 01 Mar 2025 10:00:01 GMT' }), validators));
  t.false(rangeStillValid(request({ 'if-range': 'garbage' }), validators));
});

test('needsValidators: only conditional requests', (t) => {
  t.false(needsValidators(request({ range: 'bytes=0-1' })));
  t.true(needsValidators(request({ 'if-none-match': '"a"' })));
  t.true(needsValidators(request({ 'if-modified-since': 'x' })));
  t.true(needsValidators(request({ 'if-range': '"a"' })));
});

test('If-Match compares strongly and decides before If-Unmodified-Since; an invalid date is ignored', (t) => {
  t.false(preconditionFails(request({}), validators));
  t.false(preconditionFails(request({ 'if-match': '"abc"' }), validators));
  t.false(preconditionFails(request({ 'if-match': '"x", "abc"' }), validators));
  t.false(preconditionFails(request({ 'if-match': '*' }), validators));
  t.true(preconditionFails(request({ 'if-match': 'W/"abc"' }), validators), 'weak tags never match strongly');
  t.true(preconditionFails(request({ 'if-match': '"abcd"' }), validators));
  t.false(preconditionFails(request({ 'if-unmodified-since': 'Sat, 01 Mar 2025 10:00:00 GMT' }), validators), 'whole seconds');
  t.true(preconditionFails(request({ 'if-unmodified-since': 'Sat, 01 Mar 2025 09:59:59 GMT' }), validators));
  t.false(preconditionFails(request({ 'if-unmodified-since': 'yesterday' }), validators));
  t.false(
    preconditionFails(request({ 'if-match': '"abc"', 'if-unmodified-since': 'Sat, 01 Mar 2025 09:59:59 GMT' }), validators),
    'If-Match wins',
  );
  t.true(needsValidators(request({ 'if-match': '*' })));
  t.true(needsValidators(request({ 'if-unmodified-since': 'Sat, 01 Mar 2025 09:59:59 GMT' })));
});
