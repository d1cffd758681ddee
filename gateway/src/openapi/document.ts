import swagger from '@fastify/swagger';
import type { FastifyReply, FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { FILE_PARAMETERS, FILE_RESPONSES } from './file-responses.js';
import { RESPONSE_HEADERS } from './response-headers.js';
import { transportErrors } from './responses.js';
import { fileSuccessBodies } from './success-media-types.js';
import { OpenApiDocumentSchema } from '../rest/schemas.js';

// The OpenAPI 3.1 description of everything the gateway answers over HTTP,
// generated from the routes' own zod schemas (the Connect protocol endpoints
// aside: their contract is the .proto files).

type Transform = typeof jsonSchemaTransform;
type TransformInput = Parameters<Transform>[0];

/**
 * The zod transform, plus what zod schemas cannot say: an upload form's body
 * (read by the handler as it streams, so not a validated body schema), and
 * the headers and non-JSON answers of an operation.
 */
const transform: Transform = (input: TransformInput) => {
  const formBody = (input.route.config as { formBody?: unknown } | undefined)?.formBody;
  const transformed = jsonSchemaTransform(formBody === undefined ? input : { ...input, schema: { ...input.schema, body: formBody } });
  return transformed;
};

export const openApiPlugin: FastifyPluginAsync<{ filesPath: string }> = fp(
  async (app: FastifyInstance, { filesPath }: { filesPath: string }) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Switchyard',
          version: '1.0.0',
          license: { name: 'MIT', identifier: 'MIT' },
          description:
            'Route records and uploaded assets per workspace. Every /v1 operation needs `Authorization: Bearer <token>` (a JWT with `sub`, `workspace`, `scope`). ' +
            'Errors are always `{"code","message","details"}` with Connect code names. The same operations are also served over the Connect protocol at `/switchyard.v1.<Service>/<Method>` (see proto/switchyard/v1).',
        },
        servers: [{ url: '/', description: 'This gateway.' }],
        components: {
          securitySchemes: {
            bearer: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'JWT',
              description: 'Scopes: routes:read routes:write assets:read assets:write.',
            },
          },
        },
        security: [{ bearer: [] }],
      },
      transform,
      transformObject: (documentObject: Parameters<typeof jsonSchemaTransformObject>[0]) =>
        completeDocument(jsonSchemaTransformObject(documentObject) as OpenApiDocument, filesPath),
    });
    const schema = {
      tags: ['operations'],
      operationId: 'openapi',
      summary: 'This document',
      description: 'OpenAPI 3.1, generated from the schemas that validate each request and answer; no token needed.',
      security: [],
      response: { 200: OpenApiDocumentSchema.describe('OpenAPI 3.1.'), ...transportErrors() },
    };
    app.get('/v1/openapi.json', { schema }, async (_request: unknown, reply: FastifyReply) => {
      reply.header('cache-control', 'public, max-age=300');
      return app.swagger();
    });
  },
);

interface OpenApiDocument {
  paths?: Record<
    string,
    Record<string, { operationId?: string; parameters?: unknown[]; responses?: Record<string, Record<string, unknown>> }>
  >;
  [key: string]: unknown;
}

/** Adds the response headers (Location on 201, Retry-After, x-request-id) and the files' query parameters and non-JSON answers (files, event streams). */
function completeDocument(document: OpenApiDocument, filesPath: string): OpenApiDocument {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const id = operation.operationId ?? '';
      if (path.startsWith(`${filesPath}/`) && FILE_RESPONSES[id] !== undefined) {
        operation.responses = FILE_RESPONSES[id];
        // Idempotent: the path parameters stay, the query ones are set once.
        operation.parameters = [
          ...(operation.parameters ?? []).filter((parameter) => !FILE_PARAMETERS.includes(parameter as Record<string, unknown>)),
          ...FILE_PARAMETERS,
        ];
      }
      fileSuccessBodies(id, operation.responses ?? {});
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const headers = RESPONSE_HEADERS(id, Number(status));
        if (headers !== undefined) response['headers'] = { ...(response['headers'] as object | undefined), ...headers };
      }
    }
  }
  pruneUnusedSchemas(document);
  return document;
}

/**
 * Drops component schemas no operation reaches (zod registers an input and an
 * output variant of each; linters flag the unused ones).
 */
function pruneUnusedSchemas(document: OpenApiDocument): void {
  const schemas = (document['components'] as { schemas?: Record<string, unknown> } | undefined)?.schemas;
  if (schemas === undefined) return;
  const used = new Set<string>();
  const pending = [JSON.stringify(document['paths'] ?? {})];
  while (pending.length > 0) {
    for (const [, name] of pending.pop()!.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (name === undefined || used.has(name)) continue;
      used.add(name);
      pending.push(JSON.stringify(schemas[name] ?? {}));
    }
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}
