import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { admitType, effectivePolicy, retentionMs, UNSUPPORTED_MEDIA_TYPE_FIELD, validatePolicy, versionsKept } from './workspace-policy.js';

const MAX = 1000;

test('an absent policy allows every type up to the server maximum, public by default', (t) => {
  t.deepEqual(effectivePolicy(undefined, MAX), {
    allowedTypes: [],
    maxUploadBytes: MAX,
    defaultVisibility: 'public',
    stripImageMetadata: false,
    keepVersions: 5,
    retentionDays: 7,
  });
  t.notThrows(() => admitType(effectivePolicy(undefined, MAX), 'application/x-anything'));
});

test('a stored limit applies up to the server maximum, which an absent one follows', (t) => {
  t.is(effectivePolicy({ allowedTypes: [], maxUploadBytes: 10, defaultVisibility: 'public' }, MAX).maxUploadBytes, 10);
  t.is(
    effectivePolicy({ allowedTypes: [], maxUploadBytes: 5000, defaultVisibility: 'public' }, MAX).maxUploadBytes,
    MAX,
    'a lowered MAX_UPLOAD_BYTES wins',
  );
  t.is(effectivePolicy({ allowedTypes: [], defaultVisibility: 'private' }, 2000).maxUploadBytes, 2000);
});

test('allowed types match exactly or by top-level wildcard; a refusal is marked for 415', (t) => {
  const policy = effectivePolicy(validatePolicy({ allowedTypes: ['image/*', 'application/pdf'] }, MAX), MAX);
  for (const type of ['image/png', 'image/svg+xml', 'application/pdf']) t.notThrows(() => admitType(policy, type), type);
  for (const type of ['application/pdfx', 'text/plain', 'imagex/png']) {
    const error = t.throws(() => admitType(policy, type), { instanceOf: SwitchyardError });
    t.is(error?.code, 'invalid_argument');
    t.is(error?.details[0]?.field, UNSUPPORTED_MEDIA_TYPE_FIELD);
  }
});

test('validation: media type syntax, limits within the server maximum, visibility; duplicates dropped', (t) => {
  t.deepEqual(validatePolicy({ allowedTypes: ['image/png', 'image/png'], maxUploadBytes: MAX, defaultVisibility: 'private' }, MAX), {
    allowedTypes: ['image/png'],
    maxUploadBytes: MAX,
    defaultVisibility: 'private',
  });
  t.deepEqual(validatePolicy({}, MAX), { allowedTypes: [], defaultVisibility: 'public' });
  t.deepEqual(validatePolicy({ stripImageMetadata: true }, MAX), {
    allowedTypes: [],
    defaultVisibility: 'public',
    stripImageMetadata: true,
  });
  t.deepEqual(
    validatePolicy({ stripImageMetadata: false }, MAX),
    { allowedTypes: [], defaultVisibility: 'public' },
    'off is the default, stored as no key',
  );
  t.true(effectivePolicy({ allowedTypes: [], defaultVisibility: 'public', stripImageMetadata: true }, MAX).stripImageMetadata);
  for (const input of [
    { allowedTypes: ['*/*'] },
    { allowedTypes: ['Image/png'] },
    { allowedTypes: [''] },
    { allowedTypes: Array.from({ length: 101 }, (_, i) => `a/b${i}`) },
    { maxUploadBytes: MAX + 1 },
    { maxUploadBytes: -1 },
    { maxUploadBytes: 0.5 },
    { defaultVisibility: 'hidden' },
    { stripImageMetadata: 'yes' },
    { keepVersions: 101 },
    { keepVersions: -1 },
    { keepVersions: 2.5 },
    { keepVersions: '3' },
    { retentionDays: 366 },
    { retentionDays: -1 },
    { retentionDays: 1.5 },
    { retentionDays: null },
  ]) {
    t.is(
      t.throws(() => validatePolicy(input as never, MAX), { instanceOf: SwitchyardError })?.code,
      'invalid_argument',
      JSON.stringify(input).slice(0, 80),
    );
  }
});

test('retention: keepVersions 0-100 (default 5) and retentionDays 0-365 (default 7), stored only when not the default', (t) => {
  t.deepEqual(validatePolicy({ keepVersions: 5, retentionDays: 7 }, MAX), { allowedTypes: [], defaultVisibility: 'public' });
  t.deepEqual(validatePolicy({ keepVersions: 0, retentionDays: 365 }, MAX), {
    allowedTypes: [],
    defaultVisibility: 'public',
    keepVersions: 0,
    retentionDays: 365,
  });
  t.deepEqual(validatePolicy({ keepVersions: 100, retentionDays: 0 }, MAX), {
    allowedTypes: [],
    defaultVisibility: 'public',
    keepVersions: 100,
    retentionDays: 0,
  });
  const stored = effectivePolicy({ allowedTypes: [], defaultVisibility: 'public', keepVersions: 2, retentionDays: 30 }, MAX);
  t.is(stored.keepVersions, 2);
  t.is(stored.retentionDays, 30);
  t.is(versionsKept(stored), 2);
  t.is(retentionMs(stored), 30 * 86_400_000);
  t.is(
    versionsKept(effectivePolicy({ allowedTypes: [], defaultVisibility: 'public', retentionDays: 0 }, MAX)),
    0,
    '0 days keeps no version',
  );
});
