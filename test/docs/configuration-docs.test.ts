import test from 'ava';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { envSchema, schemaDefault, wholeNumberVariable } from '@switchyard/runtime';
import { firstDifference } from '../../scripts/generated-markdown.js';
import {
  CONFIGURATION_PAGE,
  renderConfigTables,
  spliceBetweenMarkers,
  staleDocs,
  undocumentedVariables,
} from '../../scripts/config-docs.js';

test('every variable of every process has a description', (t) => {
  t.deepEqual(
    undocumentedVariables(),
    [],
    'describe them in service/src/config-docs.ts, gateway/src/config-docs.ts or runtime/src/env/shared-variable-docs.ts',
  );
});

test('no description is left over from a renamed or removed variable', (t) => {
  t.deepEqual(staleDocs(), []);
});

test('docs/configuration.md holds what `npm run gen:docs` would write', async (t) => {
  const page = await readFile(CONFIGURATION_PAGE, 'utf8');
  const expected = spliceBetweenMarkers(page, renderConfigTables());
  if (page === expected) return t.pass();
  const { line, have, want } = firstDifference(page, expected);
  t.fail(`docs/configuration.md is stale (run \`npm run gen:docs\`); line ${line} is\n  ${have}\nbut would be\n  ${want}`);
});

test('the generated tables show defaults from the schemas, and given ones where the schema cannot say', (t) => {
  const tables = renderConfigTables();
  t.regex(tables, /^\| `MAX_UPLOAD_BYTES` \| `104857600` \(100 MiB\) \|/m);
  t.regex(tables, /^\| `TRANSFORM_CONCURRENCY` \| the number of CPUs \|/m, 'not the count of the machine that generated the page');
  t.regex(tables, /^\| `CDN_URL` \| required \|/m, '`switchyard service` requires it');
  t.notRegex(tables.split('### `switchyard service`')[1]!.split('###')[0]!, /`SERVICE_URL`|`PORT`/, 'the service alone reads neither');
});

test('a variable without a description stops the generator, naming it', (t) => {
  const schema = envSchema({ DOCUMENTED: z.string().optional(), FORGOTTEN: z.string().optional() });
  const tables = [{ process: 'gateway' as const, title: 'x', intro: 'x', schema, docs: { DOCUMENTED: { meaning: 'a | b' } } }];
  t.deepEqual(undocumentedVariables(tables), ['gateway: FORGOTTEN']);
  t.throws(() => renderConfigTables(tables), { message: /FORGOTTEN/ });
});

test('pipes inside a cell are escaped, so they cannot split the table', (t) => {
  const schema = envSchema({ A: wholeNumberVariable(3, 0, 9, 'no') });
  const tables = [{ process: 'gateway' as const, title: 'x', intro: 'x', schema, docs: { A: { meaning: '`a|b`' } } }];
  t.true(renderConfigTables(tables).includes('| `A` | `3` | `a\\|b` |'));
});

test('the splice keeps the prose around the markers and refuses a page without them', (t) => {
  const page = 'intro\n<!-- config:start -->\nold\n<!-- config:end -->\noutro\n';
  t.is(spliceBetweenMarkers(page, 'new\n'), 'intro\n<!-- config:start -->\nnew\n<!-- config:end -->\noutro\n');
  t.throws(() => spliceBetweenMarkers('no markers', 'new\n'));
});

test('schemaDefault finds a default under optional, default and transform', (t) => {
  t.deepEqual(
    schemaDefault(
      z
        .string()
        .optional()
        .default('./data')
        .transform((dir) => `/abs/${dir}`),
    ),
    { value: './data' },
  );
  t.deepEqual(schemaDefault(wholeNumberVariable(250, 10, 60_000, 'no')), { value: 250 });
  t.is(schemaDefault(z.string().optional()), undefined);
});
