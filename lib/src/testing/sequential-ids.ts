import { ID_PREFIXES, type IdKind, type IdSource } from '../ids.js';

// Crockford base32, as in ULIDs, so sequential ids pass `isId`/`assertId`.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const BODY_LENGTH = 26;

/** Predictable ids for tests: `rt_00000000000000000000000001`, `rt_…02`, counted per kind. */
export function createSequentialIds(): IdSource {
  const counters = new Map<IdKind, number>();
  return {
    next(kind) {
      const n = (counters.get(kind) ?? 0) + 1;
      counters.set(kind, n);
      return `${ID_PREFIXES[kind]}_${encode(n)}`;
    },
  };
}

function encode(n: number): string {
  let body = '';
  for (let rest = n; rest > 0; rest = Math.floor(rest / 32)) body = ALPHABET[rest % 32] + body;
  return body.padStart(BODY_LENGTH, '0');
}
