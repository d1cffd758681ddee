// Type families for the filter and the icons. The API filters by one media
// type or a top-level wildcard (image/*), which covers image, video and audio.
// "Document" (PDF, text, office and e-book formats) and "other" (the rest)
// span several top-level types, so those two are filtered in the browser over
// the unfiltered listing (the list reads further pages until it has enough).

export type TypeFamily = 'image' | 'video' | 'audio' | 'document' | 'other';
export const FAMILIES: readonly TypeFamily[] = ['image', 'video', 'audio', 'document', 'other'];

const DOCUMENT_TYPES = new Set([
  'application/pdf',
  'application/rtf',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/epub+zip',
  'application/x-tex',
]);
const DOCUMENT_PREFIXES = ['text/', 'application/vnd.openxmlformats-officedocument.', 'application/vnd.oasis.opendocument.'];

export function familyOf(type: string): TypeFamily {
  const base = type.split(';')[0]!.trim().toLowerCase();
  if (base.startsWith('image/')) return 'image';
  if (base.startsWith('video/')) return 'video';
  if (base.startsWith('audio/')) return 'audio';
  if (DOCUMENT_TYPES.has(base) || DOCUMENT_PREFIXES.some((prefix) => base.startsWith(prefix))) return 'document';
  return 'other';
}

/** The API's `type` parameter for a family, or undefined when the family is filtered in the browser. */
export function typeQueryOf(family: TypeFamily | ''): string | undefined {
  return family === 'image' || family === 'video' || family === 'audio' ? `${family}/*` : undefined;
}

/** True for the families the browser filters (the API cannot express them in one query). */
export function filteredInBrowser(family: TypeFamily | ''): boolean {
  return family === 'document' || family === 'other';
}

/** Whether a media type is allowed by a policy's list (`image/*`, `application/pdf`); an empty list allows all. */
export function typeAllowed(type: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const base = type.toLowerCase();
  return allowed.some((pattern) => {
    const p = pattern.toLowerCase();
    return p.endsWith('/*') ? base.startsWith(p.slice(0, -1)) : base === p;
  });
}

/** Types the server transforms (lib TRANSFORMABLE_TYPES); other images (SVG) are not transformed and get the icon. */
export function hasThumbnail(type: string): boolean {
  return /^image\/(png|jpeg|webp|avif|gif|tiff)$/i.test(type);
}
