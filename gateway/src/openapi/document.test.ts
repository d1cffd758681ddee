import test from 'ava';
import { loadGatewayConfig } from '../config.js';
import { createGateway } from '../gateway.js';
import { createGatewayLogger } from '../logger.js';
import { createServiceClients } from '../service/clients.js';
import { openApiDocument } from './document.js';

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

/** The real route table of a gateway (clients connect lazily; nothing is called). */
function realRoutes(cdnUrl: string): string[] {
  const clients = createServiceClients('http://127.0.0.1:1');
  try {
    const gateway = createGateway({ config: loadGatewayConfig({}), cdnUrl, clients, log: createGatewayLogger('silent') });
    return gateway.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`).sort();
  } finally {
    clients.close();
  }
}

function documented(document: Record<string, unknown>): string[] {
  const paths = document['paths'] as Record<string, Record<string, unknown>>;
  return Object.entries(paths)
    .flatMap(([path, item]) => Object.keys(item).filter((key) => METHODS.includes(key)).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

for (const cdnUrl of ['http://127.0.0.1:8080/files', 'https://cdn.example.com/static/assets', 'https://cdn.example.com']) {
  test(`every route is documented and nothing else (files at ${cdnUrl})`, (t) => {
    const filesPath = new URL(cdnUrl).pathname.replace(/\/+$/, '');
    t.deepEqual(documented(openApiDocument(filesPath)), realRoutes(cdnUrl));
  });
}

test('every $ref resolves', (t) => {
  const document = openApiDocument('/files');
  const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
  t.true(refs.length > 10);
  for (const ref of refs) {
    const path = ref.slice('"$ref":"#/'.length, -1).split('/');
    let node: unknown = document;
    for (const segment of path) node = (node as Record<string, unknown> | undefined)?.[segment];
    t.truthy(node, ref);
  }
});

test('every operation documents its errors with the error schema, and every /v1 operation but this document needs a token', (t) => {
  const document = openApiDocument('/files');
  const paths = document['paths'] as Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const statuses = Object.keys(operation.responses);
      t.true(statuses.some((status) => status.startsWith('2')), `${method} ${path} success`);
      const protectedApi = path.startsWith('/v1/') && path !== '/v1/openapi.json';
      t.is(operation.security === undefined, protectedApi, `${method} ${path} security`);
      if (protectedApi) for (const status of ['400', '401', '403', '500', '503']) t.true(statuses.includes(status), `${method} ${path} ${status}`);
    }
  }
});
