// Icons by type family, as inline SVG (the CSP allows no icon fonts or CDNs).
import { familyOf, type TypeFamily } from '../lib/asset-types.js';

const PATHS: Record<TypeFamily, string> = {
  image: 'M4 5h16v14H4z M4 16l5-5 4 4 3-3 4 4 M15.5 9.5a1.5 1.5 0 1 0 0-.01',
  video: 'M3 6h13v12H3z M16 10l5-3v10l-5-3',
  audio: 'M9 18V6l10-2v12 M9 18a3 3 0 1 1-6 0 3 3 0 0 1 6 0z M19 16a3 3 0 1 1-6 0 3 3 0 0 1 6 0z',
  document: 'M6 3h8l4 4v14H6z M14 3v4h4 M9 12h6 M9 15h6 M9 18h4',
  other: 'M6 3h8l4 4v14H6z M14 3v4h4',
};

export function TypeIcon({ type, size = 24 }: { readonly type: string; readonly size?: number }) {
  const family = familyOf(type);
  return (
    <svg class={`type-icon type-${family}`} viewBox="0 0 24 24" width={size} height={size} aria-hidden="true" focusable="false">
      <path d={PATHS[family]} fill="none" stroke="currentColor" stroke-width="1.6" stroke-linejoin="round" stroke-linecap="round" />
    </svg>
  );
}
