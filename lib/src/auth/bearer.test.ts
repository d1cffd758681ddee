import test from 'ava';
import { isSwitchyardError } from '../errors.js';
import { parseBearer } from './bearer.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

test('accepts "Bearer <token>" with any case of the scheme', (t) => {
  t.is(parseBearer(`Bearer ${TOKEN}`), TOKEN);
  t.is(parseBearer(`bearer ${TOKEN}`), TOKEN);
  t.is(parseBearer(`BEARER ${TOKEN}`), TOKEN);
  t.is(parseBearer(`  Bearer   ${TOKEN}  `), TOKEN, 'surrounding and repeated spaces are tolerated');
  t.is(parseBearer('Bearer abc+/~-._=='), 'abc+/~-._==', 'the whole b64token alphabet');
});

const refused: Array<[string, string | undefined | null]> = [
  ['undefined', undefined],
  ['null', null],
  ['empty', ''],
  ['blank', '   '],
  ['scheme only', 'Bearer'],
  ['scheme and space', 'Bearer '],
  ['token without scheme', TOKEN],
  ['Basic scheme', `Basic ${TOKEN}`],
  ['scheme glued to token', `Bearer${TOKEN}`],
  ['two tokens', `Bearer ${TOKEN} ${TOKEN}`],
  ['tab separator', `Bearer\t${TOKEN}`],
  ['comma', `Bearer ${TOKEN},x`],
  ['quotes', `Bearer "${TOKEN}"`],
  ['non-ASCII', `Bearer ${TOKEN}é`],
  ['padding in the middle', 'Bearer ab=cd'],
  ['too long', `Bearer ${'a'.repeat(9000)}`],
];

for (const [title, header] of refused) {
  test(`refuses ${title} with unauthenticated, without echoing it`, (t) => {
    const error = t.throws(() => parseBearer(header));
    t.true(isSwitchyardError(error) && error.code === 'unauthenticated', String(error));
    if (header && header.trim().length > 0 && header.trim() !== 'Bearer') {
      const secretPart = header.replace(/^\s*bearer/i, '').trim() || header;
      t.false(error.message.includes(secretPart), 'the message repeats the credential');
      t.false(JSON.stringify((error as { details?: unknown }).details).includes(secretPart), 'the details repeat the credential');
    }
  });
}
