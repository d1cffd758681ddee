import test from 'ava';
import { loadGatewayConfig } from '../config.js';
import { createGateway, type Gateway } from '../gateway.js';
import { createGatewayLogger } from '../logger.js';
import { createServiceClients } from '../service/clients.js';
import { gatewayOpenApiDocument } from './offline-document.js';

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

type Document = Record<string, unknown> & {
  paths: Record<
    string,
    Record<
      string,
      { responses: Record<string, { headers?: Record<string, { required?: boolean }> }>; security?: unknown[]; operationId?: string }
    >
  >;
};

/** A gateway whose clients connect lazily: nothing is called. */
async function withGateway<T>(cdnUrl: string, use: (gateway: Gateway) => T): Promise<T> {
  const clients = createServiceClients('http://127.0.0.1:1');
  const gateway = await createGateway({ config: loadGatewayConfig({}), cdnUrl, clients, log: createGatewayLogger('silent') });
  try {
    return use(gateway);
  } finally {
    await gateway.close();
    clients.close();
  }
}

const documentOf = (gateway: Gateway): Document => gateway.app.swagger() as unknown as Document;

/** `GET /v1/routing/{id}` for find-my-way's `/v1/routing/:id` and `/v1/routing::match`; a parameter's pattern (`:id(^[^:/]+)`) goes. */
const openApiPath = (url: string): string =>
  url
    .replace(/\([^)]*\)/g, '')
    .replace(/::/g, '\u0000')
    .replace(/:([A-Za-z]+)/g, '{$1}')
    .replace(/\u0000/g, ':');

for (const cdnUrl of ['http://127.0.0.1:8080/files', 'https://cdn.example.com/static/assets', 'https://cdn.example.com']) {
  test(`every route is documented and nothing else (files at ${cdnUrl})`, async (t) => {
    await withGateway(cdnUrl, (gateway) => {
      const real = gateway.routes
        .filter((route) => !route.hidden && route.url !== '*')
        .map((route) => `${route.method} ${openApiPath(route.url)}`);
      const documented = Object.entries(documentOf(gateway).paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((key) => METHODS.includes(key))
          .map((method) => `${method.toUpperCase()} ${path}`),
      );
      // Fastify serves HEAD for every GET; the document lists HEAD only where it is its own operation (files).
      t.deepEqual(
        [...new Set(documented)].sort(),
        [...new Set(real.filter((route) => !route.startsWith('HEAD ') || documented.includes(route)))].sort(),
      );
      t.true(real.some((route) => route.startsWith('HEAD ')));
    });
  });
}

test('every $ref resolves, and the document names its server', async (t) => {
  await withGateway('http://127.0.0.1:8080/files', (gateway) => {
    const document = documentOf(gateway);
    t.true(Array.isArray(document['servers']) && (document['servers'] as unknown[]).length > 0);
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    t.true(refs.length > 5);
    for (const ref of refs) {
      const path = ref.slice('"$ref":"#/'.length, -1).split('/');
      let node: unknown = document;
      for (const segment of path) node = (node as Record<string, unknown> | undefined)?.[segment];
      t.truthy(node, ref);
    }
  });
});

test('every operation documents its errors, Location is required on 201, and every /v1 operation but this document needs a token', async (t) => {
  await withGateway('http://127.0.0.1:8080/files', (gateway) => {
    for (const [path, item] of Object.entries(documentOf(gateway).paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const statuses = Object.keys(operation.responses);
        t.true(
          statuses.some((status) => status.startsWith('2')),
          `${method} ${path} success`,
        );
        const protectedApi = path.startsWith('/v1/') && path !== '/v1/openapi.json';
        t.is(operation.security === undefined, protectedApi, `${method} ${path} security`);
        if (protectedApi)
          for (const status of ['400', '401', '403', '429', '500', '503']) t.true(statuses.includes(status), `${method} ${path} ${status}`);
        if (operation.responses['201']) t.true(operation.responses['201'].headers?.['Location']?.required, `${method} ${path} Location`);
      }
    }
  });
});

test('asset names are documented: the field, PATCH, the q filter, and ?download on file urls with its header', async (t) => {
  await withGateway('http://127.0.0.1:8080/files', (gateway) => {
    const document = documentOf(gateway) as Document & {
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    const { schemas } = document.components;
    t.truthy(schemas['Asset']?.properties?.['name']);
    t.true(schemas['Asset']?.required?.includes('name'));
    t.truthy(schemas['UpdateAssetRequestInput']?.properties?.['name']);
    const parameters = (operation: unknown) =>
      ((operation as { parameters?: { name: string; in: string }[] }).parameters ?? []).map(
        (parameter) => `${parameter.in}:${parameter.name}`,
      );
    t.true(parameters(document.paths['/v1/assets']?.['get']).includes('query:q'));
    const files = Object.entries(document.paths).find(([path]) => path.startsWith('/files/'))?.[1] ?? {};
    t.true('get' in files);
    for (const [method, file] of Object.entries(files)) {
      t.deepEqual(
        parameters(file).filter((name) => name === 'query:download'),
        ['query:download'],
        `${method}: once`,
      );
      t.regex(JSON.stringify(file?.responses['200']?.headers?.['Content-Disposition']), /filename\*=UTF-8''/);
    }
    t.deepEqual(documentOf(gateway), document, 'the same document when asked again');
  });
});

test('a route watch answers text/event-stream, not JSON; its errors stay JSON', async (t) => {
  await withGateway('http://127.0.0.1:8080/files', (gateway) => {
    const responses = documentOf(gateway).paths['/v1/routing:watch']?.['get']?.responses as Record<
      string,
      { content?: Record<string, unknown> }
    >;
    t.deepEqual(Object.keys(responses['200']?.content ?? {}), ['text/event-stream']);
    t.deepEqual(Object.keys(responses['400']?.content ?? {}), ['application/json']);
  });
});

test('gatewayOpenApiDocument builds the document a running gateway serves, without a server', async (t) => {
  const served = await withGateway('https://cdn.example.com/static', documentOf);
  t.deepEqual(await gatewayOpenApiDocument('https://cdn.example.com/static'), served);
});
