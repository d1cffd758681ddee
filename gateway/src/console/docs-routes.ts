import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const DOCS_ASSETS = '/docs/assets/';
/** The two files of Swagger UI the page loads; nothing else of the package is served. */
const SWAGGER_FILES = new Set(['swagger-ui-bundle.js', 'swagger-ui.css']);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchyard API reference</title>
<link rel="stylesheet" href="${DOCS_ASSETS}swagger-ui.css">
</head>
<body>
<main id="reference" aria-label="Switchyard API reference"></main>
<script src="${DOCS_ASSETS}swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#reference', deepLinking: true, tryItOutEnabled: false, validatorUrl: null });\n`;

/** Swagger UI draws with inline styles and data: images; it needs no other origin. */
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'self'";

/**
 * GET /docs: /v1/openapi.json rendered by Swagger UI (swagger-ui-dist, a
 * well-kept renderer), served from our own package, never from a CDN.
 */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const swaggerRoot = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const headers = { 'content-security-policy': DOCS_CSP, 'referrer-policy': 'no-referrer', 'cache-control': 'no-cache' };
  await app.register(fastifyStatic, {
    root: swaggerRoot,
    prefix: DOCS_ASSETS,
    decorateReply: false,
    wildcard: false,
    index: false,
    schemaHide: true,
    allowedPath: (path) => SWAGGER_FILES.has(path.replace(/^\//, '')),
    globIgnore: ['**/*.map', '**/*.html', '**/node_modules/**'],
    setHeaders: (reply) => void reply.headers(headers),
  });
  app.get('/docs', { schema: { hide: true } }, (_request, reply) => reply.headers(headers).type('text/html; charset=utf-8').send(PAGE));
  app.get('/docs/init.js', { schema: { hide: true } }, (_request, reply) =>
    reply.headers(headers).type('text/javascript; charset=utf-8').send(INIT),
  );
}
