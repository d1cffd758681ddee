import type { FastifyInstance } from 'fastify';

/**
 * In this plugin's scope no body parser runs: every request body, of any
 * content type, stays unread for the handler to stream (multipart uploads,
 * the Connect protocol). Bounds on those bodies are the handlers' own.
 */
export function acceptUnreadBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
}
