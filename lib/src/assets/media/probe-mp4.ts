import { createFile, MP4BoxBuffer, type Movie, type Track } from 'mp4box';
import type { BlockReader } from './block-reader.js';
import type { MediaFacts } from './media-facts.js';

/** What mp4box is handed at a time; it answers where it wants to go on (past an `mdat` it skips). */
const CHUNK_BYTES = 256 * 1024;
/** Appends before giving up: a file of thousands of top-level boxes is not a video worth describing. */
const MAX_STEPS = 4096;

/**
 * Width, height (as shown: a rotation in the track matrix swaps them) and
 * duration of an MP4 or QuickTime file, from its `moov` box with mp4box. The
 * box may be at either end: mp4box skips the media data between, so only the
 * box headers and the `moov` are read.
 */
export async function probeMp4(reader: BlockReader): Promise<MediaFacts> {
  // (The job's type and head are not needed: everything is read through the reader.)
  const file = createFile();
  let movie: Movie | undefined;
  let failed = false;
  file.onReady = (info) => void (movie = info);
  file.onError = () => void (failed = true);
  let position = 0;
  for (let step = 0; movie === undefined && !failed && position < reader.size && step < MAX_STEPS; step++) {
    const chunk = await reader.read(position, CHUNK_BYTES);
    if (chunk.length === 0) break;
    // mp4box keeps what it is given: a copy, so the reader's blocks can go.
    const next = file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(chunk.slice().buffer, position));
    position = next > position ? next : position + chunk.length;
  }
  return movie === undefined ? {} : factsOf(movie);
}

function factsOf(movie: Movie): MediaFacts {
  const seconds = movie.timescale > 0 && movie.duration > 0 ? movie.duration / movie.timescale : longestTrack(movie.tracks);
  const video = movie.videoTracks[0];
  return { durationMs: seconds === undefined ? undefined : seconds * 1000, ...(video ? shownSize(video) : {}) };
}

/** Fragmented files may leave the movie's duration 0: the longest track's then. */
function longestTrack(tracks: readonly Track[]): number | undefined {
  const seconds = tracks.map((track) => (track.timescale > 0 ? track.duration / track.timescale : 0));
  const longest = Math.max(0, ...seconds);
  return longest > 0 ? longest : undefined;
}

/** The track's presentation size; a matrix turning it a quarter (phones filming upright) swaps the sides. */
function shownSize(track: Track): { width?: number; height?: number } {
  const width = Math.round(track.track_width || track.video?.width || 0);
  const height = Math.round(track.track_height || track.video?.height || 0);
  const [a = 1, b = 0] = Array.from(track.matrix ?? []);
  return a === 0 && b !== 0 ? { width: height, height: width } : { width, height };
}
