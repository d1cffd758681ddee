import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { filesPathOf, type GatewayConfig } from './config.js';
import { CONNECT_PATH_PREFIX, createConnectProxy } from './connect-proxy.js';
import { fileEndpoints } from './files.js';
import { ApiError, methodNotAllowed, toApiError } from './http/api-error.js';
import { createContext } from './http/context.js';
import { createCors } from './http/cors.js';
import { sendError, sendJson } from './http/respond.js';
import { REQUEST_ID_HEADER, requestIdOf } from './http/request-id.js';
import { Router, type Endpoint } from './http/router.js';
import { Slots } from './http/slots.js';
import type { Logger } from '@switchyard/runtime';
import { openApiDocument } from './openapi/document.js';
import { assetEndpoints } from './rest/assets.js';
import { healthEndpoint } from './rest/health.js';
import { routingEndpoints } from './rest/routing.js';
import type { ServiceClients } from './service/clients.js';

export interface GatewayParts {
  readonly config: GatewayConfig;
  /** The resolved public base of files (CDN_URL or the gateway's own /files). */
  readonly cdnUrl: string;
  readonly clients: ServiceClients;
  readonly log: Logger;
}

export interface Gateway {
  /** Every REST, file and operations endpoint (the Connect protocol paths aside). */
  readonly endpoints: readonly Endpoint[];
  /** The node:http request listener. */
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** The gateway's HTTP surface: REST /v1, files under the CDN path, Connect protocol, health and OpenAPI. */
export function createGateway({ config, cdnUrl, clients, log }: GatewayParts): Gateway {
  const filesPath = filesPathOf(cdnUrl);
  const openApi = openApiDocument(filesPath);
  // One bound for REST and Connect uploads alike: both hold a stream to the service and a buffer here.
  const uploadSlots = new Slots(config.clientLimits.maxInflightUploads);
  const endpoints: Endpoint[] = [
    ...routingEndpoints({ clients, jsonBodyLimitBytes: config.jsonBodyLimitBytes }),
    ...assetEndpoints({ clients, maxUploadBytes: config.maxUploadBytes, uploadSlots }),
    healthEndpoint(clients),
    {
      method: 'GET',
      path: '/v1/openapi.json',
      handle: async (ctx) => sendJson(ctx.res, 200, openApi, { 'cache-control': 'public, max-age=300' }),
    },
    // Last: with a CDN_URL at the root of its host, the files path is the most general template.
    ...fileEndpoints(clients, filesPath),
  ];
  const router = new Router(endpoints);
  const cors = createCors(config.corsOrigins);
  const requestIds = new WeakMap<IncomingMessage, string>();
  const connect = createConnectProxy(
    clients,
    uploadSlots,
    (req) => requestIds.get(req) ?? requestIdOf(req),
    (req, res) => sendError(res, new ApiError('not_found', `no such RPC: ${req.url ?? ''}`)),
    (err) => log.error({ err }, 'Connect handler failed'),
  );

  async function route(req: IncomingMessage, res: ServerResponse, requestId: string, pathname: string, query: string): Promise<void> {
    let allow: string | undefined;
    try {
      const found = router.find(req.method ?? '', pathname);
      if (found.kind === 'none') throw new ApiError('not_found', `no such endpoint: ${req.method} ${pathname}`);
      if (found.kind === 'wrong-method') {
        allow = found.allowed.join(', ');
        throw methodNotAllowed(req.method ?? '', found.allowed);
      }
      const context = createContext(req, res, { requestId, gatewayLog: log, params: found.params, query: new URLSearchParams(query) });
      await found.endpoint.handle(context);
    } catch (error) {
      const failure = toApiError(error);
      if (failure.code === 'internal' || failure.code === 'unknown') log.error({ requestId, err: failure.cause ?? failure }, 'request failed');
      else if (failure.status >= 500) log.warn({ requestId, code: failure.code, reason: describe(failure.cause) }, 'request failed');
      sendError(res, failure, allow === undefined ? {} : { allow });
    }
  }

  return {
    endpoints,
    handle(req, res) {
      const started = performance.now();
      const requestId = requestIdOf(req);
      requestIds.set(req, requestId);
      res.setHeader(REQUEST_ID_HEADER, requestId);
      const target = req.url ?? '/';
      const queryAt = target.indexOf('?');
      const pathname = queryAt === -1 ? target : target.slice(0, queryAt);
      // One access line per request; never headers, never the query (a token pasted into a URL stays out of the logs).
      res.once('close', () => {
        const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
        log.info({ requestId, method: req.method, path: pathname, status: res.statusCode, completed: res.writableFinished, durationMs }, 'request');
      });
      if (cors.preflight(req, res)) return;
      cors.decorate(req, res);
      if (pathname.startsWith(CONNECT_PATH_PREFIX)) return connect(req, res);
      void route(req, res, requestId, pathname, queryAt === -1 ? '' : target.slice(queryAt + 1));
    },
  };
}

function describe(cause: unknown): string | undefined {
  return cause instanceof Error ? cause.message : cause === undefined ? undefined : String(cause);
}
