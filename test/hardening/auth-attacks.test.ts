// Issue 7, item 2: every attack on authentication and tenancy, on every
// operation and wire, against an HS256 deployment run as the two processes
// users run (`npm run service`, `npm run gateway`) with the secret the service
// generates in DATA_DIR; their whole output is read for leaked tokens.
// The JWKS deployment: auth-attacks-jwks.test.ts; JWKS faults: auth-jwks.test.ts.
import { authAttackSuite } from './support/auth-attack-suite.js';

authAttackSuite('hmac-processes');
