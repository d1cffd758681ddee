import test from 'ava';
import { SwitchyardError } from '@switchyard/core';
import { filesPathOf, loadGatewayConfig, resolveCdnUrl } from './config.js';

function refusal(env: NodeJS.ProcessEnv): SwitchyardError {
  try {
    loadGatewayConfig(env);
  } catch (error) {
    if (error instanceof SwitchyardError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

test('defaults follow docs/configuration.md', (t) => {
  const config = loadGatewayConfig({});
  t.deepEqual(config, {
    host: '127.0.0.1',
    port: 8080,
    serviceUrl: undefined,
    cdnUrl: undefined,
    maxUploadBytes: 104_857_600,
    jsonBodyLimitBytes: 65_536,
    corsOrigins: '*',
    logLevel: 'info',
    metricsPort: 9464,
    traces: { endpoint: undefined, serviceName: undefined },
    events: undefined,
    clientLimits: {
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 900_000,
      bodyIdleTimeoutMs: 30_000,
      maxConnections: 1024,
      maxInflightUploads: 256,
    },
    trustProxy: false,
    console: true,
  });
  t.is(resolveCdnUrl(config, 8080), 'http://127.0.0.1:8080/files');
});

test('the config is frozen, lists included', (t) => {
  const config = loadGatewayConfig({ CORS_ORIGINS: 'https://a.example' });
  t.true(Object.isFrozen(config));
  t.true(Object.isFrozen(config.corsOrigins));
  t.true(Object.isFrozen(config.clientLimits));
  t.throws(() => (config.corsOrigins as string[]).push('x'));
});

test('every variable is read and normalised', (t) => {
  const config = loadGatewayConfig({
    HOST: '::1',
    PORT: '0',
    SERVICE_URL: 'http://10.0.0.5:50051/',
    CDN_URL: 'https://cdn.example.com/static/files/',
    MAX_UPLOAD_BYTES: '1024',
    JSON_BODY_LIMIT_BYTES: '4096',
    CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
    LOG_LEVEL: 'WARN',
  });
  t.is(config.host, '::1');
  t.is(config.port, 0);
  t.is(config.serviceUrl, 'http://10.0.0.5:50051');
  t.is(config.cdnUrl, 'https://cdn.example.com/static/files');
  t.is(config.maxUploadBytes, 1024);
  t.is(config.jsonBodyLimitBytes, 4096);
  t.deepEqual(config.corsOrigins, ['https://app.example.com', 'http://localhost:5173']);
  t.is(config.logLevel, 'warn');
  t.is(resolveCdnUrl({ ...config, cdnUrl: undefined }, 9000), 'http://[::1]:9000/files');
  t.is(resolveCdnUrl(config, 9000), 'https://cdn.example.com/static/files');
});

test('empty variables count as unset', (t) => {
  t.is(loadGatewayConfig({ PORT: '', CDN_URL: '', CORS_ORIGINS: '' }).port, 8080);
});

test('a wildcard bind address is dialled on loopback in the default CDN url', (t) => {
  t.is(resolveCdnUrl(loadGatewayConfig({ HOST: '0.0.0.0' }), 8080), 'http://127.0.0.1:8080/files');
});

test('each bad value is refused with its variable named, all at once', (t) => {
  const error = refusal({
    HOST: 'not a host',
    PORT: '65536',
    SERVICE_URL: 'http://svc:50051/prefix',
    CDN_URL: 'ftp://cdn.example.com',
    MAX_UPLOAD_BYTES: '0',
    JSON_BODY_LIMIT_BYTES: '1',
    CORS_ORIGINS: 'https://a.example/path',
    LOG_LEVEL: 'loud',
  });
  t.is(error.code, 'invalid_argument');
  t.deepEqual(
    error.details.map((d) => d.field),
    ['HOST', 'PORT', 'SERVICE_URL', 'CDN_URL', 'MAX_UPLOAD_BYTES', 'JSON_BODY_LIMIT_BYTES', 'CORS_ORIGINS', 'LOG_LEVEL'],
  );
  for (const detail of error.details) t.true(error.message.includes(`${detail.field}: ${detail.reason}`));
  t.regex(error.message, /PORT: "65536" is not a port number/);
});

test('EVENTS_URL names the Redis or NATS whose asset changes the gateway follows; its password is never shown', (t) => {
  t.deepEqual(loadGatewayConfig({ EVENTS_URL: 'redis://127.0.0.1:6379' }).events, { kind: 'redis', url: 'redis://127.0.0.1:6379' });
  t.deepEqual(loadGatewayConfig({ EVENTS_URL: 'nats://127.0.0.1:4222' }).events, { kind: 'nats', url: 'nats://127.0.0.1:4222' });
  const error = refusal({ EVENTS_URL: 'http://user:hunter2@broker:6379' });
  t.deepEqual(
    error.details.map((d) => d.field),
    ['EVENTS_URL'],
  );
  t.regex(error.message, /EVENTS_URL: "http:\/\/user:\*\*\*@broker:6379" is not a redis:\/\/, rediss:\/\/ or nats:\/\/ URL/);
  t.false(error.message.includes('hunter2'));
});

test('URLs: no credentials, query or fragment; the service URL is an origin', (t) => {
  t.regex(refusal({ CDN_URL: 'https://user:pw@cdn.example.com/files' }).message, /no credentials/);
  t.regex(refusal({ CDN_URL: 'https://cdn.example.com/files?v=1' }).message, /no query or fragment/);
  t.regex(refusal({ CDN_URL: 'relative/files' }).message, /not an absolute URL/);
  t.regex(refusal({ SERVICE_URL: '127.0.0.1:50051' }).message, /SERVICE_URL/);
  t.regex(refusal({ MAX_UPLOAD_BYTES: '1e6' }).message, /MAX_UPLOAD_BYTES/);
  t.regex(refusal({ PORT: '-1' }).message, /PORT/);
});

test('SERVICE_URL may list several origins, normalized; each bad entry is named', (t) => {
  t.is(
    loadGatewayConfig({ SERVICE_URL: ' http://10.0.0.5:50051/ , http://10.0.0.6:50051' }).serviceUrl,
    'http://10.0.0.5:50051,http://10.0.0.6:50051',
  );
  t.is(loadGatewayConfig({ SERVICE_URL: 'http://switchyard-service:50051' }).serviceUrl, 'http://switchyard-service:50051');
  t.regex(
    refusal({ SERVICE_URL: 'http://10.0.0.5:50051,10.0.0.6:50051' }).message,
    /SERVICE_URL: .* entry 2 \("10\.0\.0\.6:50051"\) is not an absolute URL/,
  );
  t.regex(refusal({ SERVICE_URL: 'http://10.0.0.5:50051,,http://10.0.0.6:50051' }).message, /SERVICE_URL: .* entry 2 is empty/);
  t.regex(refusal({ SERVICE_URL: 'http://a:1,http://a:1/' }).message, /SERVICE_URL: .* entry 2 \("http:\/\/a:1\/"\) is listed twice/);
  t.regex(refusal({ SERVICE_URL: 'http://a:1,http://b:1/grpc' }).message, /SERVICE_URL: .* entry 2 .* must be just scheme, host and port/);
  t.regex(refusal({ SERVICE_URL: ',' }).message, /SERVICE_URL: .* lists no address/);
});

test('the files path may not shadow the API or the health check', (t) => {
  t.regex(refusal({ CDN_URL: 'http://127.0.0.1:8080/v1' }).message, /\/v1 API/);
  t.regex(refusal({ CDN_URL: 'http://127.0.0.1:8080/v1/files' }).message, /\/v1 API/);
  t.regex(refusal({ CDN_URL: 'http://127.0.0.1:8080/healthz' }).message, /healthz/);
  t.is(loadGatewayConfig({ CDN_URL: 'https://cdn.example.com' }).cdnUrl, 'https://cdn.example.com');
  t.is(loadGatewayConfig({ CDN_URL: 'https://cdn.example.com/v1files' }).cdnUrl, 'https://cdn.example.com/v1files');
});

test("filesPathOf: the CDN base's path, empty at a host's root", (t) => {
  t.is(filesPathOf('http://127.0.0.1:8080/files'), '/files');
  t.is(filesPathOf('https://cdn.example.com/a/b'), '/a/b');
  t.is(filesPathOf('https://cdn.example.com'), '');
});

test('CORS_ORIGINS: "*" or a list of origins', (t) => {
  t.is(loadGatewayConfig({ CORS_ORIGINS: ' * ' }).corsOrigins, '*');
  t.deepEqual(loadGatewayConfig({ CORS_ORIGINS: 'https://a.example/' }).corsOrigins, ['https://a.example']);
  t.regex(refusal({ CORS_ORIGINS: 'a.example' }).message, /CORS_ORIGINS/);
  t.regex(refusal({ CORS_ORIGINS: ',' }).message, /lists no origin/);
});

test('client limits: timeouts in milliseconds (0 turns the request and body timeouts off), counts at least 1', (t) => {
  const config = loadGatewayConfig({
    HEADERS_TIMEOUT_MS: '500',
    REQUEST_TIMEOUT_MS: '0',
    BODY_IDLE_TIMEOUT_MS: '0',
    MAX_CONNECTIONS: '10',
    MAX_INFLIGHT_UPLOADS: '2',
  });
  t.deepEqual(config.clientLimits, {
    headersTimeoutMs: 500,
    requestTimeoutMs: 0,
    bodyIdleTimeoutMs: 0,
    maxConnections: 10,
    maxInflightUploads: 2,
  });
  t.is(
    loadGatewayConfig({ REQUEST_TIMEOUT_MS: '1000' }).clientLimits.headersTimeoutMs,
    1000,
    'the default headers timeout shrinks to a shorter request timeout',
  );
  const error = refusal({
    HEADERS_TIMEOUT_MS: '0',
    REQUEST_TIMEOUT_MS: 'soon',
    BODY_IDLE_TIMEOUT_MS: '-5',
    MAX_CONNECTIONS: '0',
    MAX_INFLIGHT_UPLOADS: '1.5',
  });
  t.deepEqual(
    error.details.map((d) => d.field),
    ['REQUEST_TIMEOUT_MS', 'HEADERS_TIMEOUT_MS', 'BODY_IDLE_TIMEOUT_MS', 'MAX_CONNECTIONS', 'MAX_INFLIGHT_UPLOADS'],
  );
  t.regex(
    refusal({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' }).message,
    /HEADERS_TIMEOUT_MS: "5000" is longer than REQUEST_TIMEOUT_MS \(1000\)/,
  );
});

test("CONSOLE is on or off (true/false/1/0 too); anything else is refused by name; a CDN_URL may not take the console's or the reference's path", (t) => {
  t.false(loadGatewayConfig({ CONSOLE: 'off' }).console);
  t.false(loadGatewayConfig({ CONSOLE: 'OFF' }).console);
  t.true(loadGatewayConfig({ CONSOLE: 'on' }).console);
  t.false(loadGatewayConfig({ CONSOLE: '0' }).console);
  t.regex(refusal({ CONSOLE: 'maybe' }).message, /CONSOLE.*is not on or off/);
  t.regex(refusal({ CDN_URL: 'http://example.test/console' }).message, /collides with the gateway's own \/console/);
  t.regex(refusal({ CDN_URL: 'http://example.test/docs/files' }).message, /collides with the gateway's own \/docs/);
});
