// Preloaded into ours (NODE_OPTIONS=--import=<this file>) when BENCH_SHARP_CACHE=off:
// removes libvips' operation cache, as the ipx peer then does in its own process,
// so a side experiment can show whether the cache favoured either side.
import sharp from 'sharp';

sharp.cache(false);
