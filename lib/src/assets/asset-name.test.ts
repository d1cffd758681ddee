import test from 'ava';
import type { SwitchyardError } from '../errors.js';
import { cleanName, downloadName, MAX_NAME_LENGTH, nameKey, namePrefixOf, validateName } from './asset-name.js';

const refused = (t: import('ava').ExecutionContext, run: () => unknown, field: string) => {
  const error = t.throws<SwitchyardError>(run);
  t.is(error?.code, 'invalid_argument');
  t.is(error?.details[0]?.field, field);
};

test('an upload\'s name is kept as given, absent is ""', (t) => {
  t.is(cleanName(undefined), '');
  t.is(cleanName(''), '');
  t.is(cleanName('  Quartalsbericht – Q3 (final) 📊.pdf '), '  Quartalsbericht – Q3 (final) 📊.pdf ');
  t.is(cleanName('100%_done;"x".txt'), '100%_done;"x".txt');
  t.is(cleanName('a/b\\c.png'), 'a/b\\c.png', "path separators are the transport's business (multipart drops the path)");
});

test("control characters and unpaired surrogates are removed from an upload's name", (t) => {
  t.is(cleanName('in\r\nject\0ed\t.txt'), 'injected.txt');
  t.is(cleanName('del\x7f c1\u0085\u009b.txt'), 'del c1.txt');
  t.is(cleanName('lone \ud800 surrogate \udfff.txt'), 'lone  surrogate .txt');
  t.is(cleanName('pair 😀.txt'), 'pair 😀.txt', 'a surrogate pair is one character');
  t.is(cleanName('\u0000\u001f'), '', 'nothing left');
});

test('a long upload name is cut to 255 characters, keeping a short extension', (t) => {
  const long = `${'a'.repeat(300)}.pdf`;
  t.is(cleanName(long), `${'a'.repeat(MAX_NAME_LENGTH - 4)}.pdf`);
  t.is([...cleanName(`${'📷'.repeat(300)}.jpeg`)].length, MAX_NAME_LENGTH, 'counted in characters, not UTF-16 units');
  t.true(cleanName(`${'📷'.repeat(300)}.jpeg`).endsWith('📷.jpeg'));
  t.is(cleanName('b'.repeat(300)), 'b'.repeat(MAX_NAME_LENGTH), 'no extension');
  t.is(cleanName(`${'c'.repeat(300)}.${'x'.repeat(17)}`), 'c'.repeat(MAX_NAME_LENGTH), 'an extension that long is just text');
  t.is(cleanName(`.${'d'.repeat(300)}`), `.${'d'.repeat(MAX_NAME_LENGTH - 1)}`, 'a leading dot is no extension');
  t.is(cleanName('é'.repeat(MAX_NAME_LENGTH)), 'é'.repeat(MAX_NAME_LENGTH), 'exactly 255 stays');
  t.is(cleanName(`${'\n'.repeat(100)}${'e'.repeat(MAX_NAME_LENGTH)}`), 'e'.repeat(MAX_NAME_LENGTH), 'cut after cleaning');
});

test('a name that is not a string is refused', (t) => {
  for (const value of [42, null, ['a.txt'], {}]) refused(t, () => cleanName(value), 'filename');
});

test('a name set on purpose is cleaned too, but one too long is refused, not cut', (t) => {
  t.is(validateName(''), '');
  t.is(validateName('Neuer Name.pdf'), 'Neuer Name.pdf');
  t.is(validateName('tab\there.txt'), 'tabhere.txt');
  t.is(validateName('🌸'.repeat(MAX_NAME_LENGTH)), '🌸'.repeat(MAX_NAME_LENGTH));
  t.is(validateName(`${'x'.repeat(MAX_NAME_LENGTH)}\n`), 'x'.repeat(MAX_NAME_LENGTH), 'counted after cleaning');
  for (const value of ['x'.repeat(MAX_NAME_LENGTH + 1), 42, null, undefined, ['a']]) refused(t, () => validateName(value), 'name');
});

test('the search key: NFC, lower case, sigma folded, at most 255 characters', (t) => {
  t.is(nameKey('Report 2024.PDF'), 'report 2024.pdf');
  t.is(nameKey('A\u0308pfel'), 'äpfel');
  t.is(nameKey('ΟΔΟΣ'), 'οδοσ');
  t.is(nameKey('οδος'), 'οδοσ');
  t.is(nameKey('%_!\\'), '%_!\\');
  t.is([...nameKey('İ'.repeat(MAX_NAME_LENGTH))].length, MAX_NAME_LENGTH, 'İ lower-cases to two characters');
});

test("q: a prefix in the key's form, empty is none, too long is refused", (t) => {
  t.is(namePrefixOf(undefined), undefined);
  t.is(namePrefixOf(''), undefined);
  t.is(namePrefixOf('\n'), undefined);
  t.is(namePrefixOf('RE'), 're');
  t.is(namePrefixOf('100%_'), '100%_');
  t.is(namePrefixOf('A\u0308'), 'ä');
  t.is(namePrefixOf('x'.repeat(MAX_NAME_LENGTH)), 'x'.repeat(MAX_NAME_LENGTH));
  for (const value of ['x'.repeat(MAX_NAME_LENGTH + 1), 42, ['a']]) refused(t, () => namePrefixOf(value), 'q');
});

test("the download name: the name, the id and extension without one, a derived image's own extension", (t) => {
  t.is(downloadName('as_1', 'Bericht.pdf', 'application/pdf', 'application/pdf'), 'Bericht.pdf');
  t.is(downloadName('as_1', '', 'application/pdf', 'application/pdf'), 'as_1.pdf');
  t.is(downloadName('as_1', '', 'image/png', 'image/webp'), 'as_1.webp');
  t.is(downloadName('as_1', 'photo.final.PNG', 'image/png', 'image/webp'), 'photo.final.webp');
  t.is(downloadName('as_1', 'photo', 'image/png', 'image/avif'), 'photo.avif');
  t.is(downloadName('as_1', '.hidden', 'image/png', 'image/jpeg'), '.hidden.jpg');
});
