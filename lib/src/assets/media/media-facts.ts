/**
 * What a file's content says about it, where it could be read: each field is
 * absent when the format has none or its parser failed, timed out or hit its
 * byte bound.
 */
export interface MediaFacts {
  /** Pixels as shown (orientation or rotation applied): images and videos. */
  readonly width?: number | undefined;
  readonly height?: number | undefined;
  /** Audio and video. */
  readonly durationMs?: number | undefined;
  /** PDF. */
  readonly pages?: number | undefined;
  /** Images: a ThumbHash, base64 (a client decodes it to a blurred preview with the image's aspect ratio and alpha). */
  readonly placeholder?: string | undefined;
}

/** The facts as stored, with the version of the describer that read them (for `switchyard backfill-metadata`). */
export interface StoredFacts extends MediaFacts {
  /** MEDIA_FACTS_VERSION of the describer that looked at the file; 0: none did. */
  readonly factsVersion: number;
}

/**
 * The describer's version: files described by an older one (0: stored before
 * there was one, or skipped under load) are described again by
 * `backfillMediaFacts`. Raise it when the describer learns a new fact.
 */
export const MEDIA_FACTS_VERSION = 1;

/** The largest value a fact may take: the wire's uint32. */
const MAX_FACT = 0xffff_ffff;

/** ThumbHashes are at most 25 bytes: 36 base64 characters, with room to spare. */
const PLACEHOLDER = /^[A-Za-z0-9+/]{4,64}={0,2}$/;

/** Only plausible facts: whole numbers in range (dimensions and pages at least 1), a placeholder of base64. Anything else is dropped. */
export function saneFacts(facts: MediaFacts): MediaFacts {
  const positive = (value: number | undefined) =>
    value !== undefined && Number.isSafeInteger(value) && value >= 1 && value <= MAX_FACT ? value : undefined;
  const duration =
    facts.durationMs !== undefined && Number.isFinite(facts.durationMs) && facts.durationMs >= 0 && facts.durationMs <= MAX_FACT
      ? Math.round(facts.durationMs)
      : undefined;
  const width = positive(facts.width);
  const height = positive(facts.height);
  const sized = width !== undefined && height !== undefined;
  return dropUndefined({
    width: sized ? width : undefined,
    height: sized ? height : undefined,
    durationMs: duration,
    pages: positive(facts.pages),
    placeholder: facts.placeholder !== undefined && PLACEHOLDER.test(facts.placeholder) ? facts.placeholder : undefined,
  });
}

/** Absent facts are absent keys, as in records callers build. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
