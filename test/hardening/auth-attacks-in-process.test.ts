// test/hardening/auth-attacks.test.ts runs the HS256 attacks against the two
// processes users run (gateway → service over real gRPC); this is the same
// suite against service and gateway in one process over the in-process
// channel of npm start, so both channels refuse every attack alike.
import { authAttackSuite } from './support/auth-attack-suite.js';

authAttackSuite('hmac-in-process');
