import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Logger } from '@switchyard/runtime';
import { z } from 'zod';
import { contextOf } from '../app/request-context.js';
import { errorResponses } from '../openapi/responses.js';
import type { ServiceClients } from '../service/clients.js';
import {
  CallerSchema,
  callerView,
  CreateKeyBodySchema,
  KeyIdParams,
  KeyPageSchema,
  KeySchema,
  keyView,
  KeyWithSecretSchema,
  keyWithSecretView,
  RollKeyBodySchema,
} from './key-schemas.js';
import { PageQuerySchema } from './schemas.js';

export interface KeysDeps {
  readonly clients: ServiceClients;
  readonly log: Logger;
}

const TAGS = ['keys'];

/** Workspace API keys (scope workspace:admin): create, list, get, revoke, roll; and who the caller's own credential is. */
export const keyRoutes: FastifyPluginAsyncZod<KeysDeps> = async (app, { clients, log }) => {
  app.get(
    '/v1/caller',
    {
      schema: {
        tags: TAGS,
        operationId: 'getCaller',
        summary: "Who the request's credential is (scope any)",
        description:
          "The subject, workspace and scopes the server verified, and for an API key its id and expiry: a key's secret carries none of them, so a program (or the console's sign-in) asks here.",
        response: { 200: CallerSchema.describe('The caller.'), ...errorResponses(400) },
      },
    },
    async (request, reply) => callerView(await clients.keys.getCaller({}, contextOf(request, reply, log).callOptions())),
  );

  app.post(
    '/v1/keys',
    {
      schema: {
        tags: TAGS,
        operationId: 'createKey',
        summary: 'Create an API key (scope workspace:admin)',
        description:
          'The answer holds the secret, shown only here: store it now. 403 when a scope is one the caller lacks; 400 for an expiry not in the future or too far ahead.',
        body: CreateKeyBodySchema,
        response: { 201: KeyWithSecretSchema.describe('Created, with its secret.'), ...errorResponses(400, 413) },
      },
    },
    async (request, reply) => {
      const { name, scopes, expiresAt } = request.body;
      const created = await clients.keys.createKey(
        { name, scopes, expiresAt: timestampFromDate(new Date(expiresAt)) },
        contextOf(request, reply, log).callOptions(),
      );
      const view = keyWithSecretView(created);
      // The secret must not linger in a shared cache.
      return reply
        .code(201)
        .header('location', `/v1/keys/${encodeURIComponent(view.id)}`)
        .header('cache-control', 'no-store')
        .send(view);
    },
  );

  app.get(
    '/v1/keys',
    {
      schema: {
        tags: TAGS,
        operationId: 'listKeys',
        summary: "List the workspace's API keys, oldest first (scope workspace:admin)",
        description: 'Never their secrets. Revoked and expired keys stay listed, with `revokedAt` or a past `expiresAt`, for 30 days.',
        querystring: PageQuerySchema,
        response: { 200: KeyPageSchema.describe('A page.'), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const page = await clients.keys.listKeys(
        { pageSize: request.query.pageSize ?? 0, pageToken: request.query.pageToken ?? '' },
        contextOf(request, reply, log).callOptions(),
      );
      return { keys: page.keys.map(keyView), nextPageToken: page.nextPageToken };
    },
  );

  app.get(
    '/v1/keys/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'getKey',
        summary: 'Get an API key, without its secret (scope workspace:admin)',
        params: KeyIdParams,
        response: { 200: KeySchema.describe('The key.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => keyView(await clients.keys.getKey({ id: request.params.id }, contextOf(request, reply, log).callOptions())),
  );

  app.delete(
    '/v1/keys/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'revokeKey',
        summary: 'Revoke an API key (scope workspace:admin)',
        description:
          'Every instance refuses the key within a second when the services share EVENTS_URL, within 5 s otherwise. Revoking a revoked key is 204 again.',
        params: KeyIdParams,
        response: { 204: z.undefined().describe('Revoked.'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      await clients.keys.revokeKey({ id: request.params.id }, contextOf(request, reply, log).callOptions());
      return reply.code(204).send();
    },
  );

  // `:roll` is a custom method in the style of Google's AIP-136.
  app.post(
    '/v1/keys/:id(^[^:/]+)::roll',
    {
      schema: {
        tags: TAGS,
        operationId: 'rollKey',
        summary: 'Give an API key a new secret (scope workspace:admin)',
        description:
          'The answer holds the new secret, shown only here. The old secret keeps working for `graceSeconds`, then is refused. 400 `failed_precondition` for a revoked or expired key (create a new one).',
        params: KeyIdParams,
        body: RollKeyBodySchema,
        response: { 200: KeyWithSecretSchema.describe('The key with its new secret.'), ...errorResponses(400, 404, 413) },
      },
    },
    async (request, reply) => {
      const rolled = await clients.keys.rollKey(
        { id: request.params.id, graceSeconds: request.body.graceSeconds },
        contextOf(request, reply, log).callOptions(),
      );
      return reply.header('cache-control', 'no-store').send(keyWithSecretView(rolled));
    },
  );
};
