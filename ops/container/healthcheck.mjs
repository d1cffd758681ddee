// The image's HEALTHCHECK (`node /app/healthcheck.mjs`): exit 0 when the server in this container
// is ready, 1 when it is not. It finds which `switchyard` command the container runs:
// - `start` and `gateway`: GET /healthz on PORT answers 200 (the database and the blob store answer);
// - `service`: grpc.health.v1 on GRPC_PORT says SERVING;
// - anything else (`migrate`, `token`, `gc`, a shell): nothing to check, healthy.
import { readdirSync, readFileSync } from 'node:fs';

const TIMEOUT_MS = 4000;

function runningCommand() {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    let argv;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const cli = argv.findIndex((arg) => arg.endsWith('/cli/dist/bin.js') || arg === 'switchyard');
    if (cli >= 0 && argv[cli + 1] !== undefined) return argv[cli + 1];
  }
  return undefined;
}

/** Where a server bound to HOST answers from inside its own container. */
function localHost() {
  const host = process.env.HOST ?? '127.0.0.1';
  if (host === '0.0.0.0' || host === '' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

async function gatewayReady() {
  const port = process.env.PORT ?? '8080';
  const response = await fetch(`http://${localHost()}:${port}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  return response.status === 200;
}

async function serviceReady() {
  const grpc = await import('@grpc/grpc-js');
  const { service } = await import('grpc-health-check');
  const Health = grpc.makeGenericClientConstructor(service, 'Health');
  const client = new Health(`${localHost()}:${process.env.GRPC_PORT ?? '50051'}`, grpc.credentials.createInsecure());
  try {
    return await new Promise((resolve) => {
      client.check({ service: '' }, { deadline: Date.now() + TIMEOUT_MS }, (error, reply) => {
        resolve(error === null && reply?.status === 'SERVING');
      });
    });
  } finally {
    client.close();
  }
}

const command = runningCommand();
let ready = true;
try {
  if (command === 'start' || command === 'gateway') ready = await gatewayReady();
  else if (command === 'service') ready = await serviceReady();
} catch (error) {
  console.error(`healthcheck: ${error instanceof Error ? error.message : String(error)}`);
  ready = false;
}
console.log(`healthcheck: ${command ?? 'no server'} ${ready ? 'ready' : 'not ready'}`);
process.exit(ready ? 0 : 1);
