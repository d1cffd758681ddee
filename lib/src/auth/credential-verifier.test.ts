import test from 'ava';
import { createPrincipal } from './principal.js';
import { createCredentialVerifier } from './credential-verifier.js';
import { isSwitchyardError } from '../errors.js';
import { newKeySecret } from '../keys/key-secret.js';

const verifierOf = (name: string) => ({ verify: async (bearer: string) => createPrincipal(`${name}:${bearer.slice(0, 3)}`, 'acme', []) });

test('an sy_ bearer goes to the key verifier, anything else to the token verifier', async (t) => {
  const chain = createCredentialVerifier(verifierOf('token'), verifierOf('key'));
  t.is((await chain.verify(newKeySecret())).subject, 'key:sy_');
  t.is((await chain.verify('eyJ.x.y')).subject, 'token:eyJ');
});

test('without a key verifier, a key is unauthenticated', async (t) => {
  const chain = createCredentialVerifier(verifierOf('token'), undefined);
  const error = await t.throwsAsync(chain.verify(newKeySecret()));
  t.true(isSwitchyardError(error) && error.code === 'unauthenticated');
});
