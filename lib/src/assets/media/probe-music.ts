import { parseFromTokenizer } from 'music-metadata';
import type { BlockReader } from './block-reader.js';
import type { MediaFacts } from './media-facts.js';
import type { ProbeJob } from './probe-protocol.js';
import { RangeTokenizer } from './range-tokenizer.js';

/**
 * Duration of audio files (MP3, AAC, M4A, Ogg Vorbis and Opus, FLAC, WAV, …),
 * and duration, width and height of WebM and Matroska videos, with
 * music-metadata over a random-access reader. ADTS AAC has no header with its
 * length, so it is read through (as far as the byte bound lets it); the
 * others are timed from their headers (a WAV's data chunk counted only as far
 * as the file goes).
 */
export async function probeMusic(reader: BlockReader, job: ProbeJob): Promise<MediaFacts> {
  const base = job.type.split(';', 1)[0]!.trim();
  const metadata = await parseFromTokenizer(new RangeTokenizer(reader, base), {
    duration: base === 'audio/aac' || base === 'audio/x-aac',
    skipCovers: true,
    skipPostHeaders: true,
  });
  const seconds = metadata.format.duration;
  const video = metadata.format.trackInfo.find((track) => track.video !== undefined)?.video;
  return {
    durationMs: seconds === undefined ? undefined : seconds * 1000,
    width: video?.displayWidth ?? video?.pixelWidth,
    height: video?.displayHeight ?? video?.pixelHeight,
  };
}
