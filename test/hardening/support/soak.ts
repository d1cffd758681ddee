/**
 * Quick in `npm test`, long in `npm run soak` (SOAK=1): every hardening test sizes its
 * rounds, requests and durations with `scaled(quick, soak)`.
 */
export const SOAK = process.env.SOAK === '1';

export function scaled<T>(quick: T, soak: T): T {
  return SOAK ? soak : quick;
}
