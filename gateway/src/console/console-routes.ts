import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from '@switchyard/runtime';
import { ApiError } from '../http/api-error.js';
import { consoleCacheControl, consoleSecurityHeaders } from './console-headers.js';

export const CONSOLE_PATH = '/console/';

export interface ConsoleRouteOptions {
  /** The built console (`@switchyard/console`'s consoleRoot). */
  readonly root: string;
  readonly cdnUrl: string;
  readonly log: Logger;
}

/**
 * Serves the built console at /console/: its hashed assets immutable, every
 * other path under /console/ answered with index.html (the app routes by the
 * URL), each with the console's security headers. The gateway knows nothing
 * else of the console: it is a client of the public API.
 */
export async function consoleRoutes(app: FastifyInstance, { root, cdnUrl, log }: ConsoleRouteOptions): Promise<void> {
  if (!existsSync(join(root, 'index.html'))) {
    // A checkout that skipped `npm run build`: the API works; say why /console/ does not.
    log.warn({ root }, 'the console is not built (npm run build); /console/ answers 404');
    return;
  }
  const security = consoleSecurityHeaders(cdnUrl);
  const setHeaders = (reply: FastifyReply, path: string): void => {
    reply.headers(security);
    reply.header('cache-control', consoleCacheControl(path));
  };
  await app.register(fastifyStatic, {
    root,
    prefix: CONSOLE_PATH,
    // One route per built file, so a path that is not a file reaches the app's fallback below.
    wildcard: false,
    index: false,
    cacheControl: false,
    // The build writes .br and .gz beside each file (console/vite.config.ts).
    preCompressed: true,
    dotfiles: 'deny',
    schemaHide: true,
    setHeaders,
  });
  const sendIndex = (reply: FastifyReply) => {
    setHeaders(reply, 'index.html');
    return reply.sendFile('index.html', root, { cacheControl: false });
  };
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect(CONSOLE_PATH, 308));
  app.get(CONSOLE_PATH, { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
  app.get(`${CONSOLE_PATH}*`, { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
  // An asset of an older build (a tab open across a deploy) is missing, not the app: HTML there would fail as a script.
  app.get(`${CONSOLE_PATH}assets/*`, { schema: { hide: true } }, (request) => {
    throw new ApiError('not_found', `no such console file: ${request.url.split('?')[0]}`);
  });
}
