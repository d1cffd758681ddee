import { extension as mimeExtension, extensions as mimeExtensions } from 'mime-types';

/**
 * Types where mime-db's first extension is not the one people use (`audio/mpeg`
 * would be `.mpga`). Each is honoured only while mime-types lists it for the type.
 */
const PREFERRED: Readonly<Record<string, string>> = Object.freeze({ 'audio/mpeg': 'mp3', 'audio/ogg': 'ogg', 'video/quicktime': 'mov' });

/** Extensions that are safe in a URL path segment (mime-db has a few with dashes). */
const SAFE_EXTENSION = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export const FALLBACK_EXTENSION = 'bin';

/** Extensions already looked up, by type: every asset read names its file, and the table lookup parses the type each time. */
const known = new Map<string, string>();
/** Types remembered at most; stored types are the sniffed ones, a few dozen, so this only bounds the unexpected. */
const MAX_KNOWN = 1024;

/** The file extension for a media type, from the maintained mime-types table; `bin` when it has none. */
export function extensionFor(type: string): string {
  let extension = known.get(type);
  if (extension === undefined) {
    extension = lookUp(type);
    if (known.size < MAX_KNOWN) known.set(type, extension);
  }
  return extension;
}

function lookUp(type: string): string {
  const preferred = PREFERRED[type];
  if (preferred !== undefined && mimeExtensions[type]?.includes(preferred)) return preferred;
  const found = mimeExtension(type);
  return found && SAFE_EXTENSION.test(found) ? found : FALLBACK_EXTENSION;
}
