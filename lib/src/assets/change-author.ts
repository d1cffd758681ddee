import type { Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import type { ChangeAuthor } from '../ports/asset-change-log.js';

/** Who the change log names for a write by `principal`, and when (milliseconds, as stores keep them). */
export function changeAuthor(principal: Principal, clock: Clock): ChangeAuthor {
  return Object.freeze({ actor: principal.subject, time: new Date(Math.trunc(clock.now().getTime())) });
}
