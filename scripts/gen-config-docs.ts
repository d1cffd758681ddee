// Writes the configuration tables into docs/configuration.md between
// <!-- config:start --> and <!-- config:end -->, leaving the prose around them
// as it is (`npm run gen:docs`; test/docs/configuration-docs.test.ts fails
// when the page differs from what this would write). A missing page is
// created with a short intro and the markers.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { CONFIGURATION_PAGE, END_MARKER, renderConfigTables, spliceBetweenMarkers, START_MARKER } from './config-docs.js';

const NEW_PAGE = `# Configuration

What this page is for: every environment variable each Switchyard process
reads, with its default and what it does. Variables are read once at
start-up and checked against one schema per process; every bad value is
reported at once, one line per variable, and the process exits 1 before it
binds a port. An empty variable counts as unset.

${START_MARKER}
${END_MARKER}
`;

const page = existsSync(CONFIGURATION_PAGE) ? readFileSync(CONFIGURATION_PAGE, 'utf8') : NEW_PAGE;
const updated = spliceBetweenMarkers(page, renderConfigTables());
if (updated !== page) writeFileSync(CONFIGURATION_PAGE, updated);
console.log(`${updated === page ? 'unchanged' : 'wrote'} ${CONFIGURATION_PAGE}`);
