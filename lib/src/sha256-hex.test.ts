import test from 'ava';
import { sha256Hex } from './sha256-hex.js';

test('sha256Hex is the SHA-256 of the UTF-8 bytes, hex (FIPS 180-2 vectors, and a non-ASCII text)', (t) => {
  t.is(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  t.is(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  // 'é' as UTF-8 is the two bytes c3 a9.
  t.is(sha256Hex('é'), '4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
});
