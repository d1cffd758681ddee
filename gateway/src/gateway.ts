import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  capacityRefusalCell,
  idOnlyTracing,
  infoLine,
  TRACEPARENT_HEADER,
  type Logger,
  type Registry,
  type Tracing,
} from '@switchyard/runtime';
import { KeyIdMemo } from './app/key-id-memo.js';
import { forgetRequestState, keepRequestState, keyIdOf, requestIdKept } from './app/request-state.js';
import { httpRequestMetrics, UNMATCHED_ROUTE } from './app/http-metrics.js';
import { corsHeadersWithoutOrigin, corsOptions } from './app/cors.js';
import { errorHandler, replyWithError } from './app/error-reply.js';
import { takeOverResponse } from './app/raw-reply.js';
import { responseSerializer } from './app/response-serializer.js';
import { acceptUnreadBodies } from './app/unread-bodies.js';
import { filesPathOf, type GatewayConfig } from './config.js';
import { createConnectProxy } from './connect-proxy.js';
import { consoleRoot } from '@switchyard/console';
import { consoleRoutes } from './console/console-routes.js';
import { docsRoutes } from './console/docs-routes.js';
import { fileRoutes, isFilesUrl, noSuchFile } from './files.js';
import { revalidationLane } from './files/revalidation-lane.js';
import { AllowedMethods } from './http/allowed-methods.js';
import { ApiError, invalidRequest, methodNotAllowed } from './http/api-error.js';
import { lingerAfterEarlyResponse } from './http/early-close.js';
import { REQUEST_ID_HEADER, requestIdOf } from './http/request-id.js';
import { sendError } from './http/respond.js';
import { Slots } from './http/slots.js';
import { openApiPlugin } from './openapi/document.js';
import { assetRoutes } from './rest/assets.js';
import { assetChangeRoutes } from './rest/asset-changes.js';
import { retentionRoutes } from './rest/versions-and-trash.js';
import { uploadRoutes } from './rest/uploads.js';
import { healthRoute } from './rest/health.js';
import { routingRoutes } from './rest/routing.js';
import { routesAsCode } from './rest/routes-as-code.js';
import { keyRoutes } from './rest/keys.js';
import { webhookRoutes } from './rest/webhooks.js';
import type { ServiceClients } from './service/clients.js';
import { ValidatorCache, type ValidatorCacheConfig } from './files/validator-cache.js';
import { watchChanges } from './files/validator-changes.js';
import { followBrokerAssetChanges } from './files/validator-broker.js';
import { followAssetChanges } from './files/validator-feed.js';
import type { AssetChangeSource, TimeSource } from '@switchyard/core';

export interface RouteEntry {
  readonly method: string;
  readonly url: string;
  /** Left out of the OpenAPI document (the Connect protocol, whose contract is the .proto files). */
  readonly hidden: boolean;
}

export interface GatewayParts {
  readonly config: GatewayConfig;
  /** The registry request metrics go to (the process's); none are kept without one. */
  readonly metrics?: Registry | undefined;
  /** Server spans for requests (ids only by default). */
  readonly tracing?: Tracing | undefined;
  /** The resolved public base of files (CDN_URL or the gateway's own /files). */
  readonly cdnUrl: string;
  readonly clients: ServiceClients;
  readonly log: Logger;
  /** The validators of public files kept for revalidations (files/validator-cache.ts); its defaults when absent. */
  readonly fileValidators?: ValidatorCacheConfig | undefined;
  /**
   * The asset changes of a service in this process (`ServiceHandle.assetChanges`):
   * the validators learn of every change from them at once. Without (a split
   * deployment), of the changes this gateway relays at once, of the others
   * through the broker of EVENTS_URL when set, and within the cache's TTL at the latest.
   */
  readonly assetChanges?: AssetChangeSource | undefined;
  /**
   * `assetChanges` are every change to the service's assets: no other process
   * writes its database (SQLite, owned by the process). File answers are then
   * kept without an age (files/validator-cache.ts, coverage 'complete').
   */
  readonly assetChangesComplete?: boolean | undefined;
  /** The clock and timers of the linger after early answers, the validators' ages, the tus HEAD's wait for a restarting service and uploads' chunk hold (the system's by default). */
  readonly time?: TimeSource | undefined;
}

export interface Gateway {
  /** The Fastify application, ready. */
  readonly app: FastifyInstance;
  /** Every route as registered (`GET /v1/routing/:id`), the Connect protocol's included. */
  readonly routes: readonly RouteEntry[];
  /** The node:http request listener (the hardened listener in http/listener.ts owns the server). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Counts a refusal at a capacity bound outside Fastify (MAX_CONNECTIONS, in the listener). */
  countRefusal(bound: 'connections'): void;
  /** Ends long-lived responses (route watches) so a graceful shutdown need not wait for them. */
  endStreams(): void;
  close(): Promise<void>;
}

/**
 * API answers are per caller: never stored by shared caches. nosniff: an
 * error body may echo a path, and the files path shares the origin with
 * uploaded content, so no browser may take a JSON body for anything else.
 * File answers set their own cache policy.
 */
const API_HEADERS = Object.freeze({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });

/** Long enough for any id or file name a client may send; longer ones still get the contract's answer, not a bare 414. */
const MAX_PARAM_LENGTH = 16 * 1024;

/** The one line logged per request. */
interface AccessLine {
  requestId: string;
  traceId: string;
  method: string;
  path: string;
  status: number;
  completed: boolean;
  durationMs: number;
  /** The API key that authenticated the request (its id, never its secret). */
  keyId?: string | undefined;
}

/** The gateway's HTTP surface on Fastify: REST /v1, files under the CDN path, the Connect protocol, health and OpenAPI. */
export async function createGateway({
  config,
  cdnUrl,
  clients: serviceClients,
  log,
  metrics,
  tracing = idOnlyTracing(),
  fileValidators,
  assetChanges,
  assetChangesComplete = false,
  time,
}: GatewayParts): Promise<Gateway> {
  // Every change this gateway relays drops the validators it makes stale.
  const validators = new ValidatorCache(fileValidators, time);
  const clients = assetChanges ? serviceClients : watchChanges(serviceClients, validators);
  const stopLocal = assetChanges ? followAssetChanges(assetChanges, validators) : () => undefined;
  // Other instances' changes come from the broker, whose state says whether they are all heard.
  const stopBroker =
    assetChanges && assetChangesComplete
      ? (validators.setCoverage('complete'), () => undefined)
      : config.events
        ? followBrokerAssetChanges(config.events, validators, log, metrics)
        : () => undefined;
  const observe = metrics ? httpRequestMetrics(metrics) : undefined;
  const keyIdMemo = new KeyIdMemo();
  const accessLine = infoLine<AccessLine>(log, 'request', {
    requestId: 'string',
    traceId: 'string',
    method: 'string',
    path: 'string',
    status: 'number',
    completed: 'boolean',
    durationMs: 'number',
    keyId: 'string',
  });
  const filesPath = filesPathOf(cdnUrl);
  // One bound for REST and Connect uploads alike: both hold a stream to the service and a buffer here.
  const refused = {
    connections: metrics && capacityRefusalCell(metrics, 'connections'),
    uploads: metrics && capacityRefusalCell(metrics, 'uploads'),
  };
  const uploadSlots = new Slots(config.clientLimits.maxInflightUploads, () => void (refused.uploads && (refused.uploads.value += 1)));
  const allowed = new AllowedMethods();
  const app = Fastify({
    bodyLimit: config.jsonBodyLimitBytes,
    genReqId: requestIdOf,
    requestIdHeader: false,
    return503OnClosing: false,
    // Fastify's default of 10 s per plugin failed start-ups on a loaded 2-core machine (Swagger UI's static files
    // are listed at registration); a plugin that never finishes still fails the start, a minute on.
    pluginTimeout: 60_000,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // A path that does not percent-decode names nothing: 404 under the files path (a public link), 400 elsewhere.
    frameworkErrors: (_error, request, reply) =>
      void replyWithError(
        reply,
        isFilesUrl(request.url, filesPath) ? noSuchFile() : invalidRequest('path', 'malformed percent-encoding in the path'),
      ),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializer);
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    allowed.record(route);
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, hidden: route.schema?.hide === true });
  });
  /**
   * What the gateway keeps of one request, begun as it arrives: its id on the
   * answer, its span, and once the response closes its metric, the span's end
   * and its one access line (never headers, never the query: a token pasted
   * into a URL stays out of the logs). `metricRoute` labels the metric, `route`
   * names the span; `callsService` false for an answer made without the service.
   */
  const track = (
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    route: string,
    metricRoute: string,
    callsService = true,
  ): void => {
    const started = performance.now();
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const method = req.method ?? '';
    const path = pathOf(req.url ?? '');
    const incoming = req.headers[TRACEPARENT_HEADER];
    const span = tracing.startServerSpan(`${method} ${route}`, typeof incoming === 'string' ? incoming : undefined, {
      'http.request.method': method,
      'http.route': route,
      'url.path': path,
    });
    // What service calls made for the request need (their lifetime, the API key they name); an answer without one needs none.
    const lifetime = callsService ? keepRequestState(req, requestId, span, keyIdMemo) : undefined;
    res.once('close', () => {
      const elapsedMs = performance.now() - started;
      // The client went away unanswered: the service calls made for it end.
      if (!res.writableFinished) lifetime?.end();
      const status = res.statusCode;
      observe?.(method, metricRoute, status, elapsedMs / 1000);
      const keyId = keyIdOf(req, status);
      // A request made with an API key names the key (its id, never its secret) in its span as in its access line.
      span.end({
        error: status >= 500 || !res.writableFinished,
        attributes:
          keyId === undefined
            ? { 'http.response.status_code': status }
            : { 'http.response.status_code': status, 'switchyard.key_id': keyId },
      });
      const durationMs = Math.round(elapsedMs * 1000) / 1000;
      accessLine({ requestId, traceId: span.traceId, method, path, status, completed: res.writableFinished, durationMs, keyId });
      if (callsService) forgetRequestState(req);
    });
  };
  app.addHook('onRequest', (request, reply, done) => {
    // Fastify's 404 handler also has a route; only requests that matched one of ours are named by it.
    const route = request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE);
    // find-my-way matches an empty segment as a parameter (`/v1/routing/`); such a path names no resource.
    const emptyParam = hasEmptyParam(request.params);
    // The span keeps the matched template; the metric counts the request as the 404 handler's, which answers it.
    track(request.raw, reply.raw, request.id, route, emptyParam ? UNMATCHED_ROUTE : route);
    reply.headers(API_HEADERS);
    if (emptyParam) {
      reply.callNotFound();
      return;
    }
    done();
  });
  // An answer sent before the body was read (a refusal) lets the connection drain it, within bounds.
  app.addHook('onSend', (request, reply, payload, done) => {
    lingerAfterEarlyResponse(request.raw, reply.raw, undefined, time);
    done(null, payload);
  });
  app.setErrorHandler(errorHandler(log));
  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    const methods = allowed.at(path);
    const failure =
      methods === undefined
        ? new ApiError('not_found', `no such endpoint: ${request.method} ${path}`)
        : methodNotAllowed(request.method, methods);
    return replyWithError(reply, failure);
  });
  // JSON bodies only; the upload forms and the Connect protocol read theirs as they stream (acceptUnreadBodies).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));

  await app.register(cors, corsOptions(config.corsOrigins));
  await app.register(openApiPlugin, { filesPath });
  const streams = new AbortController();
  await app.register(routingRoutes, { clients, log, closing: streams.signal });
  await app.register(routesAsCode, { clients, log });
  await app.register(assetRoutes, { clients, maxUploadBytes: config.maxUploadBytes, uploadSlots, log, time });
  await app.register(assetChangeRoutes, { clients, log, closing: streams.signal });
  await app.register(retentionRoutes, { clients, log });
  await app.register(uploadRoutes, {
    clients,
    maxUploadBytes: config.maxUploadBytes,
    uploadSlots,
    log,
    trustProxy: config.trustProxy,
    time,
  });
  await app.register(keyRoutes, { clients, log });
  await app.register(webhookRoutes, { clients, log });
  await app.register(healthRoute, { clients, log });
  await app.register(fileRoutes, { clients, filesPath, log, validators });
  if (config.console) await app.register(consoleRoutes, { root: consoleRoot, cdnUrl, log });
  await app.register(docsRoutes);
  await app.register(async (rpc) => {
    acceptUnreadBodies(rpc);
    const connect = createConnectProxy(
      clients,
      uploadSlots,
      (req) => requestIdKept(req) ?? requestIdOf(req),
      (req, res) => sendError(res, new ApiError('not_found', `no such RPC: ${req.url ?? ''}`)),
      (err) => log.error({ err }, 'Connect handler failed'),
    );
    for (const route of connect.routes) {
      rpc.route({
        method: [...route.methods],
        url: route.path,
        schema: { hide: true },
        handler: (request, reply) => connect.handle(request.raw, takeOverResponse(reply)),
      });
    }
  });
  await app.ready();
  // Revalidations of public files already known are answered before Fastify routes them, exactly as the files route would.
  const answerKnownRevalidation = revalidationLane({
    filesPath,
    validators,
    // API_HEADERS' cache-control gives way to the file's and their nosniff is the 304's own: CORS's are what remains.
    hookHeaders: corsHeadersWithoutOrigin(config.corsOrigins),
    track: (req, res, route) => track(req, res, requestIdOf(req), route, route, false),
  });
  return {
    app,
    routes,
    handle: (req, res) => void (answerKnownRevalidation(req, res) || app.routing(req, res)),
    countRefusal: (bound) => void (refused[bound] && (refused[bound].value += 1)),
    endStreams: () => streams.abort(),
    close: async () => {
      stopLocal();
      await stopBroker();
      await app.close();
    },
  };
}

function hasEmptyParam(params: unknown): boolean {
  if (typeof params !== 'object' || params === null) return false;
  for (const value of Object.values(params)) if (value === '') return true;
  return false;
}

function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}
