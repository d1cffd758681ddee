// Issue 7, item 2: every attack on authentication and tenancy, on every
// operation and wire, against a deployment verifying tokens with an RSA
// identity provider's JWKS (AUTH_JWKS_URL, served on loopback), run in this
// process with every debug-level log line of the gateway and service captured.
// Includes HS/RS key confusion: HS256 tokens keyed with the public key.
import { authAttackSuite } from './support/auth-attack-suite.js';

authAttackSuite('jwks-in-process');
