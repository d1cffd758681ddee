import { CounterFamily, type Registry, type Tracing } from '@switchyard/runtime';
import { GrpcMetrics } from './grpc/grpc-metrics.js';
import { timedStores } from './stores/timed-stores.js';
import { registerUploadGauge } from './upload-metrics.js';
import { transformMetrics } from './transform-metrics.js';
import type { Transport } from '@connectrpc/connect';
import {
  createCredentialVerifier,
  createSwitchyard,
  KEY_PURGE_INTERVAL_MS,
  sleep,
  systemTime,
  type AssetChangeSource,
  type Switchyard,
  type TimeSource,
  type HostResolver,
} from '@switchyard/core';
import { resolveUrlSigningKeys } from './url-signing-keys.js';
import { createInProcessChannel } from './in-process/transport.js';
import { urlHost, type ServiceConfig } from './config.js';
import { createAuthenticator, createTokenVerifier } from './grpc/auth.js';
import { HealthMonitor } from './grpc/health.js';
import { routeGrpcJsLogs } from './grpc/grpc-js-logging.js';
import { bindServer, createGrpcServer, shutdownServer } from './grpc/server.js';
import { rateLimited, type WorkspaceRateLimiter } from './limits/workspace-rate-limiter.js';
import { openWorkspaceRateLimiter } from './limits/open-rate-limiter.js';
import type { BrokerFeed, Logger } from '@switchyard/runtime';
import { createServiceLogger } from './logger.js';
import { openStorage, type Storage } from './stores/open-storage.js';
import { openChangeFeed } from './scale/open-change-feed.js';
import { openKeyFeed } from './scale/open-key-feed.js';
import { countRevisionReads } from './scale/revision-reads.js';
import { isExecutable } from './ffmpeg-path.js';
import { startWebhookRelay, type RelayHandle } from './webhooks/start-relay.js';

export interface StartServiceOptions {
  readonly logger?: Logger | undefined;
  /**
   * Storage opened by the caller, who then also closes it; by default the
   * service opens (and migrates) the storage of `config.storage` and closes it
   * on `close()`.
   */
  readonly storage?: Storage | undefined;
  /** How often health is re-checked against storage (default 5 s). */
  readonly healthIntervalMs?: number | undefined;
  /** How long `close()` lets calls in flight finish before cutting them off (default 10 s). */
  readonly shutdownTimeoutMs?: number | undefined;
  /** The registry the gRPC server metrics go to (the process's, shared with a gateway in one process); none are kept without one. */
  readonly metrics?: Registry | undefined;
  /** Server spans for calls (the process's, shared with a gateway in one process); ids only by default. */
  readonly tracing?: Tracing | undefined;
  /** The clock and timers of the core (leases, deadlines, polls), the health checks, the shared rate limit and upload streams' idle timeout (the system's by default). */
  readonly time?: TimeSource | undefined;
  /** How webhook destinations' host names are resolved (the system's by default; tests map names to any address). */
  readonly webhookResolver?: HostResolver | undefined;
}

export interface ServiceHandle {
  /** `host:port` as clients dial it (IPv6 hosts in brackets). */
  readonly address: string;
  readonly port: number;
  /**
   * The in-process channel to this service: a Connect transport that runs the
   * same handlers without a socket, for a gateway in the same process.
   */
  readonly inProcess: Transport;
  /**
   * Asset revisions as they commit (the core's `assetChanges`): this
   * service's writes with the assets they changed, other instances' as heard
   * on EVENTS_URL. A gateway in the same process drops the file answers they
   * make stale.
   */
  readonly assetChanges: AssetChangeSource;
  /**
   * Graceful: reports NOT_SERVING, refuses new calls, lets calls in flight
   * finish within the shutdown timeout, then closes the storage it opened.
   * Idempotent.
   */
  close(): Promise<void>;
}

/** Opens storage, wires the core and serves it over gRPC on `config.host:config.grpcPort` (0 picks a free port). */
export async function startService(config: ServiceConfig, options: StartServiceOptions = {}): Promise<ServiceHandle> {
  const log = options.logger ?? createServiceLogger(config.logLevel);
  const time = options.time ?? systemTime;
  // Before the first call: grpc-js would otherwise print header values (tokens) to stderr.
  routeGrpcJsLogs(log);
  const ownsStorage = options.storage === undefined;
  const storage = options.storage ?? (await openStorage(config.storage, { migrate: true }));
  const health = new HealthMonitor({
    check: () => storage.check(),
    log,
    intervalMs: options.healthIntervalMs ?? 5_000,
    timeoutMs: 3_000,
    time: options.time,
  });
  let feed: BrokerFeed | undefined;
  let keyFeed: BrokerFeed | undefined;
  let limiter: WorkspaceRateLimiter | undefined;
  let relay: RelayHandle | undefined;
  /** The core once made: a start that fails after it closes it too (its timers and parser workers must not keep the process alive). */
  let core: Switchyard | undefined;
  try {
    // Per workspace, per instance or shared through Redis (RATE_LIMIT_STORE): see limits/open-rate-limiter.ts.
    const refusals = options.metrics
      ? new CounterFamily(options.metrics, {
          name: 'switchyard_rate_limited_total',
          help: 'Calls refused by the per-workspace rate limit (429).',
        }).cell({})
      : undefined;
    limiter = await openWorkspaceRateLimiter(config.limits.rateLimit, config.scale.rateLimitStore, log, options.metrics, options.time);
    const stores = options.metrics ? timedStores(storage, options.metrics) : storage;
    if (options.metrics) registerUploadGauge(options.metrics, storage.uploadStore);
    // EVENTS_URL: route and asset changes fan out through a broker, watchers poll only as a safety net (scale/open-change-feed.ts);
    // API key revocations reach every instance through the same broker, on a channel of their own.
    [feed, keyFeed] = await Promise.all([
      openChangeFeed(config.scale.events, config.storage.database, log, options.metrics),
      openKeyFeed(config.scale.events, config.storage.database, log),
    ]);
    const switchyard = createSwitchyard({
      routeStore: options.metrics ? countRevisionReads(stores.routeStore, options.metrics, 'routes') : stores.routeStore,
      assetStore: options.metrics ? countRevisionReads(stores.assetStore, options.metrics, 'assets') : stores.assetStore,
      blobStore: stores.blobStore,
      uploadStore: stores.uploadStore,
      keyStore: stores.keyStore,
      webhookStore: storage.webhookStore,
      webhooks: config.webhooks,
      keys: {
        maxTtlMs: config.keys.maxTtlMs,
        feed: keyFeed,
        onTouchError: (error: unknown) => log.warn({ err: error }, "recording an API key's last use failed"),
        // Keys revoked or expired more than 30 days ago leave the database (every instance purges; the deletes are idempotent).
        purgeEveryMs: KEY_PURGE_INTERVAL_MS,
        onPurgeError: (error: unknown) => log.warn({ err: error }, 'purging old API keys failed; the next purge tries again'),
      },
      uploadExpiryMs: config.uploadExpiryMs,
      fileCache: { maxBytes: config.fileCacheBytes },
      cdnUrl: config.cdnUrl,
      maxUploadBytes: config.maxUploadBytes,
      urlSigningKeys: await resolveUrlSigningKeys(config),
      routeWatch: { ...config.routeWatch, feed },
      time: options.time,
      transforms: config.transforms,
      transformObserver: options.metrics ? transformMetrics(options.metrics) : undefined,
      posterFrames: { ffmpegPath: config.ffmpegPath },
    });
    core = switchyard;
    logFfmpeg(config.ffmpegPath, log);
    // A bearer string is an API key (sy_…) or a JWT: one chain, the same refusals either way.
    const authenticate = rateLimited(
      createAuthenticator(createCredentialVerifier(await createTokenVerifier(config), switchyard.keyVerifier)),
      limiter,
      () => void (refusals && (refusals.value += 1)),
    );
    await health.start();
    const metrics = options.metrics ? new GrpcMetrics(options.metrics) : undefined;
    const { server, handlers, settled, endStreams } = createGrpcServer({
      switchyard,
      authenticate,
      health,
      log,
      uploadIdleTimeoutMs: config.limits.uploadIdleTimeoutMs,
      timers: options.time,
      metrics,
      tracing: options.tracing,
    });
    const port = await bindServer(server, `${urlHost(config.host)}:${config.grpcPort}`).catch(async (error: unknown) => {
      server.forceShutdown();
      throw error;
    });
    const address = `${urlHost(config.host)}:${port}`;
    relay = startWebhookRelay(storage.webhookStore, config.webhooks, log, time, options.webhookResolver, options.metrics);
    log.info({ address, storage: describeStorage(config) }, 'gRPC service listening');

    let closing: Promise<void> | undefined;
    const inProcess = createInProcessChannel(handlers, { accepting: () => closing === undefined, time: options.time });
    const close = async (): Promise<void> => {
      // Watches end now (their clients resume elsewhere) rather than at the shutdown deadline.
      endStreams();
      await health.stop();
      const timeoutMs = options.shutdownTimeoutMs ?? 10_000;
      const deadline = time.now().getTime() + timeoutMs;
      const { forced } = await shutdownServer(server, timeoutMs, time);
      // In-process calls get the same deadline as those over the socket.
      const waiting = new AbortController();
      const inProcessDone = await Promise.race([
        settled().then(() => true),
        sleep(time, Math.max(0, deadline - time.now().getTime()), waiting.signal).then(() => false),
      ]);
      waiting.abort();
      if (forced || !inProcessDone) {
        inProcess.cancelAll();
        log.warn('calls still running at the shutdown deadline were cut off');
      }
      // Cut-off handlers are cancelled; let them clean up before their storage goes away.
      await settled();
      await relay?.close();
      await switchyard.close();
      await feed?.close();
      await keyFeed?.close();
      await limiter?.close();
      if (ownsStorage) await storage.close();
      log.info('gRPC service stopped');
    };
    return Object.freeze({
      address,
      port,
      inProcess: inProcess.transport,
      assetChanges: switchyard.assetChanges,
      close: () => (closing ??= close()),
    });
  } catch (error) {
    await health.stop();
    await relay?.close();
    await core?.close();
    await feed?.close();
    await keyFeed?.close();
    await limiter?.close();
    if (ownsStorage) await storage.close().catch(() => undefined);
    throw error;
  }
}

/** Whether videos get poster frames, said once at start: a FFMPEG_PATH that names nothing is a mistake worth a warning. */
function logFfmpeg(ffmpegPath: string | undefined, log: Logger): void {
  if (ffmpegPath === undefined) log.info('no ffmpeg on PATH: poster frames (?frame on video urls) answer 501 unimplemented');
  else if (!isExecutable(ffmpegPath))
    log.warn({ ffmpegPath }, 'FFMPEG_PATH names no executable: poster frames (?frame on video urls) answer 501 unimplemented');
}

/** Where records and bytes live, without credentials. */
function describeStorage(config: ServiceConfig): { database: string; blobs: string } {
  const { database, blobs } = config.storage;
  return {
    database:
      database.kind === 'sqlite' ? `sqlite:${database.file}` : `mysql://${new URL(database.url).host}${new URL(database.url).pathname}`,
    blobs: blobs.kind === 'disk' ? `disk:${blobs.root}` : `s3://${blobs.bucket}${blobs.endpoint ? ` at ${blobs.endpoint}` : ''}`,
  };
}
