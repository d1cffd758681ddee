import test from 'ava';
import { isInlineType, safetyHeaders, SANDBOX_POLICY } from './file-headers.js';

test('active and unknown types are downloads under a sandbox', (t) => {
  for (const type of [
    'text/html',
    'image/svg+xml',
    'application/xml',
    'text/xml',
    'application/xhtml+xml',
    'application/octet-stream',
    'text/javascript',
    'application/x-unheard-of',
    'TEXT/HTML',
  ]) {
    const headers = safetyHeaders(type);
    t.is(headers['content-disposition'], 'attachment', type);
    t.is(headers['content-security-policy'], SANDBOX_POLICY, type);
    t.is(headers['x-content-type-options'], 'nosniff', type);
    t.false(isInlineType(type), type);
  }
});

test('inert types show inline; PDF goes without the sandbox its viewers refuse', (t) => {
  for (const type of [
    'image/png',
    'image/jpeg',
    'image/gif',
    'image/webp',
    'audio/mpeg',
    'video/mp4',
    'text/plain',
    'text/csv',
    'application/json',
    'text/plain; charset=utf-8',
  ]) {
    t.true(isInlineType(type), type);
    t.is(safetyHeaders(type)['content-disposition'], undefined, type);
    t.is(safetyHeaders(type)['content-security-policy'], SANDBOX_POLICY, type);
  }
  t.is(safetyHeaders('application/pdf')['content-security-policy'], undefined);
  t.is(safetyHeaders('application/pdf')['content-disposition'], undefined);
  t.is(safetyHeaders('application/pdf')['x-content-type-options'], 'nosniff');
});
