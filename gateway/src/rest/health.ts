import { ApiError, toApiError } from '../http/api-error.js';
import { sendJson } from '../http/respond.js';
import type { Endpoint } from '../http/router.js';
import type { ServiceClients } from '../service/clients.js';
import { HealthCheckResponse_ServingStatus as ServingStatus } from '@switchyard/proto';

const HEALTH_TIMEOUT_MS = 3_000;

/**
 * `GET /healthz`: 200 when the service's grpc.health.v1 check says SERVING
 * (it checks the database and the blob store), else 503 `unavailable`.
 */
export function healthEndpoint(clients: ServiceClients): Endpoint {
  return {
    method: 'GET',
    path: '/healthz',
    async handle(ctx) {
      let status: ServingStatus;
      try {
        ({ status } = await clients.health.check({ service: '' }, { ...ctx.callOptions(), timeoutMs: HEALTH_TIMEOUT_MS }));
      } catch (error) {
        const reason = toApiError(error).code === 'unavailable' ? 'the service does not answer' : 'the health check failed';
        throw new ApiError('unavailable', `not ready: ${reason}`, [{ reason }], { cause: error });
      }
      if (status !== ServingStatus.SERVING) {
        const reported = ServingStatus[status] ?? String(status);
        throw new ApiError('unavailable', `not ready: the service reports ${reported}`, [{ reason: `service status ${reported}` }]);
      }
      sendJson(ctx.res, 200, { status: 'SERVING' }, { 'cache-control': 'no-store' });
    },
  };
}
