// Hand-written for speed: a revalidation of a public file this gateway already
// knows is answered 304 before Fastify routes it. Justified by
// peer-file-serve-304 (bench/hand-written-parts.md#revalidation-lane): a bare
// node:http 304 costs 13.4 µs of CPU on the bench machine, ours cost 73 µs
// through Fastify's pipeline and hooks, serve-static's 57; with this lane 36–38,
// and the figure went from 1.762 to 3.334 of @fastify/static, 0.674 to 1.308 of serve-static.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FILE_PATH_SEGMENT, fileCacheKey, fileRouteOf, hasBody, sendNotModified } from '../files.js';
import { isNotModified } from './conditional.js';
import type { ValidatorCache } from './validator-cache.js';

export interface RevalidationLaneParts {
  readonly filesPath: string;
  readonly validators: ValidatorCache;
  /** What the gateway's hooks put on a file's 304 to a request without Origin, the request id aside: CORS's headers for such a request. */
  readonly hookHeaders: Readonly<Record<string, string>>;
  /** Starts what the gateway's hooks keep of a request (its id header, span, metric, access line) for `route`. */
  readonly track: (req: IncomingMessage, res: ServerResponse, route: string) => void;
}

/**
 * A handler that answers `req` and returns true when it is a revalidation the
 * files route would answer 304 from the validator cache without a service
 * call: GET or HEAD of `<filesPath>/<asset id>/<file name>` with no query (no
 * signature, transformation or download), If-None-Match matching the kept
 * ETag, no If-Match or If-Unmodified-Since (they come first and may answer
 * 412), no body, no Authorization, and no Origin (CORS headers then depend on
 * it, and the plugin adds them). Anything else returns false untouched, for Fastify.
 */
export function revalidationLane({
  filesPath,
  validators,
  hookHeaders,
  track,
}: RevalidationLaneParts): (req: IncomingMessage, res: ServerResponse) => boolean {
  const prefix = `${filesPath}/`;
  const route = fileRouteOf(filesPath);
  return (req, res) => {
    const { headers } = req;
    if (headers['if-none-match'] === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    if (headers.origin !== undefined || headers['if-match'] !== undefined || headers['if-unmodified-since'] !== undefined) return false;
    // An API key presented anyway is named on the access line, as the gateway remembers it: the route's hooks do that.
    if (headers.authorization !== undefined || hasBody(req)) return false;
    const url = req.url ?? '';
    if (!url.startsWith(prefix)) return false;
    const slash = url.indexOf('/', prefix.length);
    if (slash === -1) return false;
    const assetId = url.slice(prefix.length, slash);
    const fileName = url.slice(slash + 1);
    // The pattern excludes `/` and `?`: exactly two plain segments, no query.
    if (!FILE_PATH_SEGMENT.test(assetId) || !FILE_PATH_SEGMENT.test(fileName)) return false;
    // The files route's key for a file without query or chosen format.
    const meta = validators.get(assetId, fileCacheKey(fileName, '', undefined));
    if (meta === undefined || !isNotModified(req, meta)) return false;
    track(req, res, route);
    for (const name in hookHeaders) res.setHeader(name, hookHeaders[name]!);
    sendNotModified(res, meta, false);
    return true;
  };
}
