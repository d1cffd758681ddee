import test from 'ava';
import { readFile } from 'node:fs/promises';
import { firstDifference, spliceBetween } from '../../scripts/generated-markdown.js';
import { ENDPOINT_MARKERS, loadGatewayDocument, renderEndpointTable, REST_PAGE, type OpenApiDocument } from '../../scripts/rest-docs.js';

// The gateway's document, built once: every test here reads it, none changes it.
let loading: Promise<OpenApiDocument> | undefined;
const gatewayDocument = (): Promise<OpenApiDocument> => (loading ??= loadGatewayDocument());

test('docs/rest.md holds the endpoint table `npm run gen:docs` would write', async (t) => {
  const page = await readFile(REST_PAGE, 'utf8');
  const expected = spliceBetween(page, renderEndpointTable(await gatewayDocument()), ENDPOINT_MARKERS);
  if (page === expected) return t.pass();
  const { line, have, want } = firstDifference(page, expected);
  t.fail(`docs/rest.md is stale (run \`npm run gen:docs\`); line ${line} is\n  ${have}\nbut would be\n  ${want}`);
});

test('every operation of the document has a row, with the method and path a REST user writes', async (t) => {
  const document = await gatewayDocument();
  const table = renderEndpointTable(document);
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/^\/files\//, '<CDN_URL>/')}`),
  );
  t.true(operations.length > 20);
  for (const operation of operations) t.true(table.includes(`| \`${operation}`), operation);
  t.regex(table, /^\| `GET \/v1\/routing\/\{id\}` \| 200 \| routes:read \|/m);
});

test('the table shows bodies, successes and scopes from the document', async (t) => {
  const table = renderEndpointTable(await gatewayDocument());
  t.regex(
    table,
    /^\| `POST \/v1\/routing` \(JSON: `method`, `path`, `middleware\?`, `handler`, `owner\?`\) \| 201 \+ `Location` \| routes:write \| .*409 `already_exists`/m,
  );
  t.regex(table, /^\| `PATCH \/v1\/assets\/\{id\}` \(JSON, any of `label`, `name`, `visibility`\) \|/m);
  t.regex(
    table,
    /^\| `POST \/v1\/assets\/upload` \(multipart: `file`, `label\?`, `visibility\?`\) \| 201 \+ `Location` \| assets:write \|/m,
  );
  t.regex(table, /^\| `GET \/v1\/routing:match\?method=&path=` \| 200 `\{route, params\}` \|/m);
  t.regex(table, /^\| `POST \/v1\/assets:batchDelete` \(JSON: `ids`\) \| 200 `\{results: \[\{id, code\}\]\}` \|/m);
  t.regex(table, /^\| `GET \/v1\/routing:watch\?sinceRevision` \(header `last-event-id`\) \| 200 `text\/event-stream` \|/m);
  t.regex(table, /^\| `GET <CDN_URL>\/\{assetId\}\/\{fileName\}\?download&[^`]*` \| 200 \/ 206 \/ 304 \| none \|/m);
  t.regex(table, /^\| `GET \/healthz` \| 200 `\{status\}` \| none \| .*503/m);
});

/** A document of one operation, for the renderer's refusals and escapes. */
const oneOperation = (operation: OpenApiDocument['paths'][string][string]): OpenApiDocument => ({
  paths: { '/v1/things': { get: operation } },
  security: [{ bearer: [] }],
});

test('an operation that needs a token but names no scope stops the generator, naming it', (t) => {
  t.throws(() => renderEndpointTable(oneOperation({ summary: 'List things', responses: { '200': {} } })), {
    message: /GET \/v1\/things.*scope/,
  });
  t.regex(
    renderEndpointTable(oneOperation({ summary: 'List things', security: [], responses: { '200': {} } })),
    /\| none \| List things\. \|/,
  );
});

test('pipes cannot split a row, and a < outside code cannot start an HTML tag', (t) => {
  const table = renderEndpointTable(
    oneOperation({ summary: 'List things (scope things:read)', description: 'a | b, `<x|y>` and <script>', responses: { '200': {} } }),
  );
  t.true(table.includes('| things:read | List things. a \\| b, `<x\\|y>` and &lt;script> |'), table);
});
