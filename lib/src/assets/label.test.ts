import test from 'ava';
import type { SwitchyardError } from '../errors.js';
import { MAX_LABEL_LENGTH, validateLabel } from './label.js';

test('labels are optional text, kept as given', (t) => {
  t.is(validateLabel(undefined), '');
  t.is(validateLabel(''), '');
  t.is(validateLabel('  Product shots / Spring 🌸 '), '  Product shots / Spring 🌸 ');
  t.is(validateLabel('é'.repeat(MAX_LABEL_LENGTH)), 'é'.repeat(MAX_LABEL_LENGTH));
  t.is(validateLabel('🌸'.repeat(MAX_LABEL_LENGTH)), '🌸'.repeat(MAX_LABEL_LENGTH), 'counted in characters, not UTF-16 units');
});

test('bad labels are invalid_argument on field label', (t) => {
  for (const label of [
    'x'.repeat(MAX_LABEL_LENGTH + 1),
    'tab\there',
    'new\nline',
    'nul\0',
    'del\x7f',
    'c1\u0085',
    'lone \ud800 surrogate',
    42,
    null,
    ['a'],
  ]) {
    const error = t.throws<SwitchyardError>(() => validateLabel(label));
    t.is(error?.code, 'invalid_argument');
    t.is(error?.details[0]?.field, 'label');
  }
});
