import { ApiError, toApiError } from '../http/api-error.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Logger } from '@switchyard/runtime';
import { contextOf } from '../app/request-context.js';
import { errorResponses, transportErrors } from '../openapi/responses.js';
import { HealthSchema } from './schemas.js';
import type { ServiceClients } from '../service/clients.js';
import { HealthCheckResponse_ServingStatus as ServingStatus } from '@switchyard/proto';

const HEALTH_TIMEOUT_MS = 3_000;

/**
 * `GET /healthz`: 200 when the service's grpc.health.v1 check says SERVING
 * (it checks the database and the blob store), else 503 `unavailable`.
 */
export const healthRoute: FastifyPluginAsyncZod<{ clients: ServiceClients; log: Logger }> = async (app, { clients, log }) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'health',
        summary: 'Readiness: the service, its database and blob store answer',
        description: '200 while they answer, else 503 `unavailable`.',
        security: [],
        response: { 200: HealthSchema.describe('Ready.'), ...transportErrors(), 503: errorResponses()[503]! },
      },
    },
    async (request, reply) => {
      let status: ServingStatus;
      try {
        ({ status } = await clients.health.check(
          { service: '' },
          { ...contextOf(request, reply, log).callOptions(), timeoutMs: HEALTH_TIMEOUT_MS },
        ));
      } catch (error) {
        const reason = toApiError(error).code === 'unavailable' ? 'the service does not answer' : 'the health check failed';
        throw new ApiError('unavailable', `not ready: ${reason}`, [{ reason }], { cause: error });
      }
      if (status !== ServingStatus.SERVING) {
        const reported = ServingStatus[status] ?? String(status);
        throw new ApiError('unavailable', `not ready: the service reports ${reported}`, [{ reason: `service status ${reported}` }]);
      }
      return { status: 'SERVING' as const };
    },
  );
};
