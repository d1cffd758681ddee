// `npm run gen:docs`: writes every generated part of the docs, leaving the
// prose around it as it is:
// - the configuration tables of docs/configuration.md, between
//   <!-- config:start --> and <!-- config:end --> (from the env schemas;
//   test/docs/configuration-docs.test.ts). A missing page is created with a
//   short intro and the markers.
// - the endpoint table of docs/rest.md, between <!-- endpoints:start --> and
//   <!-- endpoints:end --> (from the gateway's OpenAPI document;
//   test/docs/rest-docs.test.ts).
// Each test fails when its page differs from what this would write.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { CONFIGURATION_PAGE, END_MARKER, renderConfigTables, spliceBetweenMarkers, START_MARKER } from './config-docs.js';
import { spliceBetween } from './generated-markdown.js';
import { ENDPOINT_MARKERS, loadGatewayDocument, renderEndpointTable, REST_PAGE } from './rest-docs.js';

const NEW_CONFIGURATION_PAGE = `# Configuration

What this page is for: every environment variable each Switchyard process
reads, with its default and what it does. Variables are read once at
start-up and checked against one schema per process; every bad value is
reported at once, one line per variable, and the process exits 1 before it
binds a port. An empty variable counts as unset.

${START_MARKER}
${END_MARKER}
`;

/** Writes `path` only when its text changes, and says which. */
function update(path: string, page: string, updated: string): void {
  if (updated !== page) writeFileSync(path, updated);
  console.log(`${updated === page ? 'unchanged' : 'wrote'} ${path}`);
}

const configuration = existsSync(CONFIGURATION_PAGE) ? readFileSync(CONFIGURATION_PAGE, 'utf8') : NEW_CONFIGURATION_PAGE;
update(CONFIGURATION_PAGE, configuration, spliceBetweenMarkers(configuration, renderConfigTables()));

const rest = readFileSync(REST_PAGE, 'utf8');
update(REST_PAGE, rest, spliceBetween(rest, renderEndpointTable(await loadGatewayDocument()), ENDPOINT_MARKERS));
