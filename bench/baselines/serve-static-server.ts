// Second peer for peer-file-serve-* (a reference beside @fastify/static):
// serve-static 2 on a bare node:http server, as its README's "Serve files with
// vanilla node.js http server" example does, with the options its README
// gives for content-addressed files: `maxAge` with `immutable: true` ("The
// `immutable` directive will prevent supported clients from making
// conditional requests during the life of the `maxAge` option"), and
// `fallthrough: false`, which "can be used if this middleware is mounted at a
// path that is designed to be strictly a single file system directory, which
// allows for short-circuiting 404s for less overhead". ETag, Last-Modified and
// Range stay on (their defaults).
//
// What it does not do that ours does: no database lookup, no visibility or
// signature check, no metrics, no access log, no CORS or safety headers; a
// weak ETag from the stat it makes on every request.
import { createServer } from 'node:http';
import serveStatic from 'serve-static';
import { requiredEnv } from './baseline-auth.js';
import { serveHttp } from './serve-http.js';

const PREFIX = '/files';
const serve = serveStatic(requiredEnv('PEER_FILES_DIR'), { maxAge: '30d', immutable: true, fallthrough: false, index: false });

const server = createServer((req, res) => {
  const done = (error?: { status?: number }) => void res.writeHead(error?.status ?? 404).end();
  if (!req.url?.startsWith(`${PREFIX}/`)) return done();
  // Mounted at /files, as Express or connect would mount it: the middleware sees the path below the mount point.
  req.url = req.url.slice(PREFIX.length);
  serve(req, res, done);
});
serveHttp(server);
