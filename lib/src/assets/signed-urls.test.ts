import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { createUrlSigner, type UrlSigningKey } from './signed-urls.js';

const key = (id: string, fill: number): UrlSigningKey => ({ id, secret: new Uint8Array(32).fill(fill) });
const PATH = 'as_01/bl_01.png';
const NOW = 1_700_000_000_000;
const EXPIRES = NOW / 1000 + 60;

function denied(t: import('ava').ExecutionContext, run: () => void, message: RegExp): void {
  const error = t.throws(run, { instanceOf: SwitchyardError });
  t.is(error?.code, 'permission_denied');
  t.regex(error?.message ?? '', message);
}

test('a signed query verifies for its path and epoch until, not including, its expiry second', (t) => {
  const signer = createUrlSigner([key('k1', 1)]);
  const query = signer.sign(PATH, 0, EXPIRES);
  t.regex(query, /^expires=\d+&kid=k1&sig=[\w-]{43}$/);
  t.notThrows(() => signer.verify(PATH, 0, query, NOW));
  t.notThrows(() => signer.verify(PATH, 0, query, EXPIRES * 1000 - 1), 'the last millisecond');
  denied(t, () => signer.verify(PATH, 0, query, EXPIRES * 1000), /expired/);
  denied(t, () => signer.verify('as_01/bl_02.png', 0, query, NOW), /not valid/);
  denied(t, () => signer.verify(PATH, 1, query, NOW), /not valid/);
});

test('every parameter is signed, in any order; missing, repeated or extra ones are refused', (t) => {
  const signer = createUrlSigner([key('k1', 1)]);
  const query = signer.sign(PATH, 0, EXPIRES, [
    ['w', '64'],
    ['format', 'webp'],
  ]);
  const params = new URLSearchParams(query);
  t.notThrows(() => signer.verify(PATH, 0, query, NOW));
  t.notThrows(() => signer.verify(PATH, 0, new URLSearchParams([...params].reverse()).toString(), NOW), 'order does not matter');
  const without = (name: string) => new URLSearchParams([...params].filter(([key]) => key !== name)).toString();
  denied(t, () => signer.verify(PATH, 0, without('w'), NOW), /not valid/);
  denied(t, () => signer.verify(PATH, 0, without('sig'), NOW), /needs a signature/);
  denied(t, () => signer.verify(PATH, 0, `${query}&q=80`, NOW), /not valid/);
  denied(t, () => signer.verify(PATH, 0, `${query}&kid=k1`, NOW), /needs a signature/);
  denied(t, () => signer.verify(PATH, 0, '', NOW), /needs a signature/);
  denied(t, () => signer.verify(PATH, 0, query.replace(/expires=\d+/, 'expires=1e12'), NOW), /not valid/);
});

test('rotation: the first key signs, every key verifies; a dropped key no longer does', (t) => {
  const old = createUrlSigner([key('old', 1)]);
  const rotated = createUrlSigner([key('new', 2), key('old', 1)]);
  const retired = createUrlSigner([key('new', 2)]);
  const before = old.sign(PATH, 0, EXPIRES);
  t.notThrows(() => rotated.verify(PATH, 0, before, NOW));
  const after = rotated.sign(PATH, 0, EXPIRES);
  t.regex(after, /kid=new/);
  t.notThrows(() => retired.verify(PATH, 0, after, NOW));
  denied(t, () => retired.verify(PATH, 0, before, NOW), /not valid/);
  // Same id, another secret: a forged kid does not help.
  denied(t, () => createUrlSigner([key('old', 3)]).verify(PATH, 0, before, NOW), /not valid/);
});

test('bad keys are refused when the signer is made', (t) => {
  for (const keys of [[], [key('bad id!', 1)], [{ id: 'short', secret: new Uint8Array(31) }], [key('twice', 1), key('twice', 2)]]) {
    t.is(t.throws(() => createUrlSigner(keys), { instanceOf: SwitchyardError })?.code, 'invalid_argument');
  }
});

test('download is outside the signature: a holder of a signed url may add it, and it grants nothing else', (t) => {
  const signer = createUrlSigner([key('k1', 1)]);
  const query = signer.sign(PATH, 0, EXPIRES, [['w', '64']]);
  for (const added of ['download', 'download=', 'download=1', 'download&download=x']) {
    t.notThrows(() => signer.verify(PATH, 0, `${query}&${added}`, NOW), added);
    t.notThrows(() => signer.verify(PATH, 0, `${added}&${query}`, NOW), `${added} first`);
  }
  t.notThrows(() => signer.verify(PATH, 0, signer.sign(PATH, 0, EXPIRES, [['download', '']]), NOW), 'signed with it, verified the same');
  denied(t, () => signer.verify(PATH, 0, `${query}&download&q=80`, NOW), /not valid/);
  denied(t, () => signer.verify(PATH, 0, 'download', NOW), /needs a signature/);
  denied(t, () => signer.verify('as_01/bl_02.png', 0, `${query}&download`, NOW), /not valid/);
});
