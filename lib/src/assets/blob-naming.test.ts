import test from 'ava';
import type { SwitchyardError } from '../errors.js';
import { blobKeyFor, parsePublicPath, publicPathFor } from './blob-naming.js';

const ASSET = 'as_01hzy7k3q8m4v6x2c9d5e7f0ab';
const BLOB = 'bl_01hzy7k3q8m4v6x2c9d5e7f0ac';

test('blob keys are per workspace and asset; public paths name the blob and the type', (t) => {
  t.is(blobKeyFor('ws-1', ASSET, BLOB), `ws-1/${ASSET}/${BLOB}`);
  t.is(publicPathFor(ASSET, BLOB, 'image/png'), `${ASSET}/${BLOB}.png`);
  t.is(publicPathFor(ASSET, BLOB, 'application/octet-stream'), `${ASSET}/${BLOB}.bin`);
});

test('a public path parses back into its parts', (t) => {
  t.deepEqual(parsePublicPath(`${ASSET}/${BLOB}.png`), { assetId: ASSET, blobId: BLOB, extension: 'png' });
});

test('malformed public paths are invalid_argument', (t) => {
  const bad = [
    '',
    ASSET,
    `${ASSET}/${BLOB}`,
    `${ASSET}/${BLOB}.`,
    `${ASSET}/${BLOB}.PNG`,
    `${ASSET}/${BLOB}.tar.gz`,
    `/${ASSET}/${BLOB}.png`,
    `${ASSET}/${BLOB}.png/`,
    `${ASSET}/../${BLOB}.png`,
    `${BLOB}/${ASSET}.png`,
    `as_nope/${BLOB}.png`,
    `${ASSET}/bl_NOPE.png`,
    `x/${ASSET}/${BLOB}.png`,
  ];
  for (const path of bad) t.is(t.throws<SwitchyardError>(() => parsePublicPath(path))?.code, 'invalid_argument', path);
  t.is(t.throws<SwitchyardError>(() => parsePublicPath(42))?.code, 'invalid_argument');
});
