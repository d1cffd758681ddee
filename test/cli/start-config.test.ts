// `switchyard start` parses both apps' variables in one pass, before it binds anything.
import test from 'ava';
import { runCli } from '../support/cli.js';

test('bad variables of the service, the gateway and both are reported together, each once, and start exits 1', async (t) => {
  const run = await runCli(['start'], {
    PORT: '0',
    GRPC_PORT: 'fifty',
    BLOB_STORE: 's3',
    AUTH_SECRET: 'short-secret',
    CORS_ORIGINS: 'not-an-origin',
    HEADERS_TIMEOUT_MS: '5000',
    REQUEST_TIMEOUT_MS: '1000',
    LOG_LEVEL: 'loud',
    DATA_DIR: '',
    DATABASE_URL: '',
  });
  t.is(run.code, 1, run.stderr);
  t.is(run.stdout, '', 'nothing started, nothing printed as running');
  const lines = run.stderr.trim().split('\n');
  t.is(lines[0], 'invalid configuration:');
  t.deepEqual(
    lines.slice(1).map((line) => line.trim().split(':')[0]),
    // The service's variables first, then the gateway's own: one list, in one order.
    ['LOG_LEVEL', 'GRPC_PORT', 'S3_BUCKET', 'AUTH_SECRET', 'CORS_ORIGINS', 'HEADERS_TIMEOUT_MS'],
  );
  t.false(run.stderr.includes('short-secret'), 'the secret is not echoed');
});
