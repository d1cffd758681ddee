// Peer for peer-transform-miss and peer-transform-hit: ipx 3 (unjs, the image
// server behind Nuxt Image) as its README's programmatic API shows it:
// `createIPX({ storage: ipxFSStorage({ dir }) })` served by
// `createIPXNodeServer(ipx)` (h3 v1) on node:http. Nothing else is set: ipx
// documents no production settings beyond its storage and `maxAge` (left at
// its default, 60 s of Cache-Control). It runs the sharp it depends on
// (0.34, libvips 8.17), not ours (0.35, libvips 8.18).
//
// What it does not do that ours does: no result cache (every request decodes,
// resizes and encodes again, a repeat included), no store of variants, no
// EXIF auto-rotation unless asked (ours always applies it), no pixel limit of
// its own (sharp's default, 268 MP), no bound on transforms at once (as many as
// libuv's four threads; ours runs TRANSFORM_CONCURRENCY, the number of cores),
// no auth (nor does ours for public files), no database lookup.
//
// sharp's libvips operation cache: both sides run sharp's default (50 MB, 20
// files, 100 operations; ours never changes it). It is set here explicitly so
// that an ipx or sharp release with another default cannot make the two
// differ silently; SHARP_CACHE=off removes it (the bench then removes it in
// ours too, through NODE_OPTIONS), for the side experiment in bench/README.md.
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { createIPX, createIPXNodeServer, ipxFSStorage } from 'ipx';
import { requiredEnv } from './baseline-auth.js';
import { serveHttp } from './serve-http.js';

// ipx imports `sharp` from its own folder: set the cache on that copy (the one whose libvips this process loads).
const ipxRequire = createRequire(createRequire(import.meta.url).resolve('ipx'));
const sharp = ipxRequire('sharp') as typeof import('sharp');
const cache = process.env.SHARP_CACHE === 'off' ? sharp.cache(false) : sharp.cache({ memory: 50, files: 20, items: 100 });

const ipx = createIPX({ storage: ipxFSStorage({ dir: requiredEnv('IPX_DIR') }) });
serveHttp(createServer(createIPXNodeServer(ipx)), {
  extra: `sharp=${sharp.versions.sharp} vips=${sharp.versions.vips} cache=${JSON.stringify(cache)}`,
});
