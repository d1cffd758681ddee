import type { MediaFacts } from './media-facts.js';

/** Which parser a file goes to (probe-worker.ts). */
export type ProbeKind = 'mp4' | 'music' | 'pdf';

/** One file to describe: its sniffed type, size, and the head kept while it streamed in (reads inside it cost nothing). */
export interface ProbeJob {
  readonly kind: ProbeKind;
  readonly type: string;
  readonly size: number;
  readonly head: Uint8Array;
}

/** From the server to a probe worker: a job, or the answer to one of its reads. */
export type ToWorker =
  | { readonly job: ProbeJob }
  | { readonly read: number; readonly bytes: Uint8Array }
  | { readonly read: number; readonly error: string };

/** From a probe worker: its parser is loaded (the deadline starts), a read of the stored file, or the job's end. */
export type FromWorker =
  | { readonly loaded: true }
  | { readonly read: number; readonly start: number; readonly length: number }
  | { readonly facts: MediaFacts }
  | { readonly failed: string };

/** The parser for a sniffed type (parameters such as `; codecs=opus` ignored), or none. */
export function probeKindOf(type: string): ProbeKind | undefined {
  const base = type.split(';', 1)[0]!.trim();
  if (MP4_TYPES.has(base)) return 'mp4';
  if (base === 'application/pdf') return 'pdf';
  if (MATROSKA_TYPES.has(base) || base.startsWith('audio/')) return 'music';
  return undefined;
}

/** ISO base media files: mp4box reads their `moov` box, wherever it is. */
const MP4_TYPES: ReadonlySet<string> = new Set(['video/mp4', 'video/quicktime', 'video/x-m4v', 'video/3gpp', 'video/3gpp2']);
/** EBML files: music-metadata reads their video track's size too. */
const MATROSKA_TYPES: ReadonlySet<string> = new Set(['video/webm', 'video/matroska', 'video/x-matroska']);
