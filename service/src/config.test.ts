import test from 'ava';
import { isAbsolute, join, resolve } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { loadServiceConfig } from './config.js';

const SECRET = 'x'.repeat(32);

function refusal(env: NodeJS.ProcessEnv): SwitchyardError {
  try {
    loadServiceConfig(env);
  } catch (error) {
    if (error instanceof SwitchyardError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

test('defaults follow docs/configuration.md', (t) => {
  const config = loadServiceConfig({});
  t.is(config.host, '127.0.0.1');
  t.is(config.grpcPort, 50051);
  t.is(config.dataDir, resolve('./data'));
  t.is(config.cdnUrl, 'http://127.0.0.1:8080/files');
  t.deepEqual(config.storage, {
    database: { kind: 'sqlite', file: join(resolve('./data'), 'switchyard.sqlite') },
    blobs: { kind: 'disk', root: join(resolve('./data'), 'files') },
    routeHistory: 10_000,
    assetHistory: 10_000,
  });
  t.deepEqual(config.auth, { kind: 'hmac' });
  t.is(config.maxUploadBytes, 104_857_600);
  t.is(config.logLevel, 'info');
  t.deepEqual(config.routeWatch, { pollMs: 250, heartbeatMs: 15_000 });
  t.is(config.urlSigningKeys, undefined);
});

test('the config is frozen all the way down', (t) => {
  const config = loadServiceConfig({});
  t.true(Object.isFrozen(config));
  t.true(Object.isFrozen(config.storage));
  t.true(Object.isFrozen(config.storage.database));
  t.true(Object.isFrozen(config.auth));
});

test('every variable is read', (t) => {
  const config = loadServiceConfig({
    HOST: '0.0.0.0',
    PORT: '9000',
    GRPC_PORT: '0',
    DATA_DIR: 'relative/dir',
    CDN_URL: 'https://cdn.example.com/assets/',
    DATABASE_URL: 'mysql://u:p@db.local:3306/switchyard',
    BLOB_STORE: 's3',
    S3_BUCKET: 'my-bucket',
    S3_ENDPOINT: 'http://127.0.0.1:4568',
    S3_REGION: 'eu-west-1',
    AUTH_SECRET: SECRET,
    MAX_UPLOAD_BYTES: '1024',
    LOG_LEVEL: 'DEBUG',
    STORAGE_TIMEOUT_MS: '2500',
    ASSET_HISTORY: '500',
  });
  t.is(config.host, '0.0.0.0');
  t.is(config.grpcPort, 0);
  t.true(isAbsolute(config.dataDir));
  t.is(config.dataDir, resolve('relative/dir'));
  t.is(config.cdnUrl, 'https://cdn.example.com/assets');
  t.deepEqual(config.storage.database, { kind: 'mysql', url: 'mysql://u:p@db.local:3306/switchyard', timeoutMs: 2500 });
  t.deepEqual(config.storage.blobs, {
    kind: 's3',
    bucket: 'my-bucket',
    region: 'eu-west-1',
    endpoint: 'http://127.0.0.1:4568',
    forcePathStyle: true,
    timeoutMs: 2500,
  });
  t.deepEqual(config.auth, { kind: 'hmac', secret: SECRET });
  t.is(config.maxUploadBytes, 1024);
  t.is(config.logLevel, 'debug');
  t.is(config.storage.assetHistory, 500);
});

test('the CDN default follows HOST and PORT, with brackets for IPv6', (t) => {
  t.is(loadServiceConfig({ HOST: 'localhost', PORT: '3000' }).cdnUrl, 'http://localhost:3000/files');
  t.is(loadServiceConfig({ HOST: '::1' }).cdnUrl, 'http://[::1]:8080/files');
});

test('S3 without an endpoint uses virtual-host addressing and the default region', (t) => {
  const config = loadServiceConfig({ BLOB_STORE: 's3', S3_BUCKET: 'bucket' });
  t.deepEqual(config.storage.blobs, {
    kind: 's3',
    bucket: 'bucket',
    region: 'us-east-1',
    endpoint: undefined,
    forcePathStyle: false,
    timeoutMs: 5000,
  });
});

test('AUTH_JWKS_URL selects JWKS verification', (t) => {
  t.deepEqual(loadServiceConfig({ AUTH_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json' }).auth, {
    kind: 'jwks',
    url: 'https://idp.example.com/.well-known/jwks.json',
  });
});

test('empty variables count as unset', (t) => {
  t.is(loadServiceConfig({ GRPC_PORT: '', DATABASE_URL: '' }).grpcPort, 50051);
});

const badValues: Array<[string, NodeJS.ProcessEnv, RegExp]> = [
  ['HOST', { HOST: 'not a host' }, /HOST: "not a host" is not an IP address or host name/],
  ['PORT', { PORT: '70000' }, /PORT: "70000" is not a port number/],
  ['PORT', { PORT: '-1' }, /PORT: "-1" is not a port number/],
  ['GRPC_PORT', { GRPC_PORT: 'abc' }, /GRPC_PORT: "abc" is not a port number/],
  ['GRPC_PORT', { GRPC_PORT: '1.5' }, /GRPC_PORT: "1.5" is not a port number/],
  ['CDN_URL', { CDN_URL: 'cdn.example.com' }, /CDN_URL: "cdn.example.com" is not an absolute URL/],
  ['CDN_URL', { CDN_URL: 'ftp://cdn.example.com' }, /CDN_URL: "ftp:\/\/cdn.example.com" is not an http or https URL/],
  ['CDN_URL', { CDN_URL: 'https://cdn.example.com/?a=1' }, /CDN_URL: .* must have no query or fragment/],
  ['DATABASE_URL', { DATABASE_URL: 'postgres://u@h/db' }, /DATABASE_URL: "postgres:\/\/u@h\/db" is not a mysql:\/\/ URL/],
  ['DATABASE_URL', { DATABASE_URL: 'nonsense' }, /DATABASE_URL: "nonsense" is not a URL/],
  ['DATABASE_URL', { DATABASE_URL: 'mysql://root@127.0.0.1:3306' }, /DATABASE_URL: .* names no database/],
  ['BLOB_STORE', { BLOB_STORE: 'ftp' }, /BLOB_STORE: "ftp" is not a blob store \(disk or s3\)/],
  ['S3_BUCKET', { BLOB_STORE: 's3' }, /S3_BUCKET: is required when BLOB_STORE=s3/],
  ['S3_BUCKET', { BLOB_STORE: 's3', S3_BUCKET: 'Bad_Bucket' }, /S3_BUCKET: "Bad_Bucket" is not a valid bucket name/],
  ['S3_ENDPOINT', { BLOB_STORE: 's3', S3_BUCKET: 'b-1', S3_ENDPOINT: 'localhost:4568' }, /S3_ENDPOINT: "localhost:4568" is not/],
  ['S3_REGION', { BLOB_STORE: 's3', S3_BUCKET: 'b-1', S3_REGION: 'EU West' }, /S3_REGION: "EU West" is not a region name/],
  ['AUTH_SECRET', { AUTH_SECRET: 'short' }, /AUTH_SECRET: is too short/],
  ['AUTH_JWKS_URL', { AUTH_JWKS_URL: 'not a url' }, /AUTH_JWKS_URL: "not a url" is not an absolute URL/],
  ['AUTH_JWKS_URL', { AUTH_JWKS_URL: 'https://idp/jwks', AUTH_SECRET: SECRET }, /AUTH_JWKS_URL: cannot be combined with AUTH_SECRET/],
  ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '10MB' }, /MAX_UPLOAD_BYTES: "10MB" is not a positive whole number/],
  ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '0' }, /MAX_UPLOAD_BYTES: "0" is not a positive whole number/],
  ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '99999999999999999999' }, /MAX_UPLOAD_BYTES: .* is not a positive whole number/],
  ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }, /LOG_LEVEL: "verbose" is not a log level/],
  ['STORAGE_TIMEOUT_MS', { STORAGE_TIMEOUT_MS: '5s' }, /STORAGE_TIMEOUT_MS: "5s" is not a positive whole number/],
  ['STORAGE_TIMEOUT_MS', { STORAGE_TIMEOUT_MS: '0' }, /STORAGE_TIMEOUT_MS: "0" is not a positive whole number/],
  ['ASSET_HISTORY', { ASSET_HISTORY: '0' }, /ASSET_HISTORY: "0" is not a whole number of revisions between 1 and 10000000/],
  ['ASSET_HISTORY', { ASSET_HISTORY: 'all' }, /ASSET_HISTORY: "all" is not a whole number of revisions/],
  ['EVENTS_URL', { EVENTS_URL: 'http://127.0.0.1:6379' }, /EVENTS_URL: .* is not a redis:\/\/, rediss:\/\/ or nats:\/\/ URL/],
  ['EVENTS_URL', { EVENTS_URL: 'redis' }, /EVENTS_URL: "redis" is not a URL/],
  ['RATE_LIMIT_STORE', { RATE_LIMIT_STORE: 'memcached' }, /RATE_LIMIT_STORE: "memcached" is not a rate limit store/],
  ['RATE_LIMIT_STORE', { RATE_LIMIT_STORE: 'redis' }, /RATE_LIMIT_STORE: is redis, but no Redis is named/],
  [
    'RATE_LIMIT_STORE',
    { RATE_LIMIT_STORE: 'redis', EVENTS_URL: 'nats://127.0.0.1:4222' },
    /RATE_LIMIT_STORE: is redis, but no Redis is named/,
  ],
  [
    'RATE_LIMIT_REDIS_URL',
    { RATE_LIMIT_REDIS_URL: 'nats://127.0.0.1:4222' },
    /RATE_LIMIT_REDIS_URL: .* is not a redis:\/\/ or rediss:\/\/ URL/,
  ],
];

for (const [variable, env, message] of badValues) {
  test(`refuses a bad ${variable}: ${JSON.stringify(env)}`, (t) => {
    const error = refusal(env);
    t.is(error.code, 'invalid_argument');
    t.regex(error.message, message);
    t.true(error.details.some((detail) => detail.field === variable));
  });
}

test('all problems are reported at once', (t) => {
  const error = refusal({ GRPC_PORT: 'x', LOG_LEVEL: 'loud', BLOB_STORE: 'tape' });
  t.deepEqual(error.details.map((d) => d.field).sort(), ['BLOB_STORE', 'GRPC_PORT', 'LOG_LEVEL']);
  t.regex(error.message, /^invalid configuration:\n/);
});

test('neither a database password nor a secret is echoed', (t) => {
  const database = refusal({ DATABASE_URL: 'mysql://user:hunter2@host' });
  t.false(database.message.includes('hunter2'));
  t.regex(database.message, /mysql:\/\/user:\*\*\*@host/);
  const secret = refusal({ AUTH_SECRET: 'tiny-secret' });
  t.false(secret.message.includes('tiny-secret'));
});

test('scale-out: no broker by default; EVENTS_URL picks Redis or NATS; shared limits take their own Redis, else the events one', (t) => {
  t.deepEqual(loadServiceConfig({}).scale, { events: undefined, rateLimitStore: { kind: 'memory' } });
  t.deepEqual(loadServiceConfig({ EVENTS_URL: 'nats://127.0.0.1:4222' }).scale.events, { kind: 'nats', url: 'nats://127.0.0.1:4222' });
  const redis = loadServiceConfig({ EVENTS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_STORE: 'redis' }).scale;
  t.deepEqual(redis, {
    events: { kind: 'redis', url: 'redis://127.0.0.1:6379' },
    rateLimitStore: { kind: 'redis', url: 'redis://127.0.0.1:6379' },
  });
  const own = loadServiceConfig({
    EVENTS_URL: 'nats://127.0.0.1:4222',
    RATE_LIMIT_STORE: 'redis',
    RATE_LIMIT_REDIS_URL: 'redis://10.0.0.5:6380/2',
  }).scale;
  t.deepEqual(own.rateLimitStore, { kind: 'redis', url: 'redis://10.0.0.5:6380/2' });
});

test('a broker password is not echoed', (t) => {
  const error = refusal({ EVENTS_URL: 'http://user:hunter2@broker' });
  t.false(error.message.includes('hunter2'));
});
