import test from 'ava';
import { SwitchyardError } from '@switchyard/core';
import { envSchema, mergeEnvSchemas, parseEnv, shownAs } from './env-schema.js';
import { httpUrlVariable, portVariable, rule, secretVariable, SHARED_VARIABLES } from './variables.js';

const redact = (raw: string) => raw.replace(/:[^@/]*@/, ':***@');
const schema = envSchema(
  {
    PORT: portVariable(8080),
    URL: shownAs(
      rule((raw) => (raw.startsWith('db://') ? raw : undefined), 'is not a db:// URL'),
      redact,
    ).optional(),
    TOKEN: secretVariable(8, 'is too short'),
    MODE: rule((raw) => (raw === 'a' || raw === 'b' ? raw : undefined), 'is not a or b')
      .optional()
      .default('a'),
  },
  (values, refuse) => {
    if (values['MODE'] === 'b' && values['URL'] === undefined) refuse('URL', 'is required when MODE=b', { showValue: false });
  },
);

function refusal(env: NodeJS.ProcessEnv): SwitchyardError {
  try {
    parseEnv(schema, env);
  } catch (error) {
    if (error instanceof SwitchyardError) return error;
    throw error;
  }
  throw new Error('accepted');
}

test('defaults for unset and empty variables; the result is deeply frozen', (t) => {
  const values = parseEnv(schema, { PORT: '', MODE: undefined });
  t.deepEqual({ ...values }, { PORT: 8080, URL: undefined, TOKEN: undefined, MODE: 'a' });
  t.true(Object.isFrozen(values));
  t.is(parseEnv(schema, { PORT: '0' }).PORT, 0);
});

test('every bad variable at once, in the schema order, each with its quoted value and reason', (t) => {
  const error = refusal({ MODE: 'c', PORT: '99999', URL: 'http://x' });
  t.is(error.code, 'invalid_argument');
  t.deepEqual(error.details, [
    { field: 'PORT', reason: '"99999" is not a port number (0-65535; 0 picks a free port)' },
    { field: 'URL', reason: '"http://x" is not a db:// URL' },
    { field: 'MODE', reason: '"c" is not a or b' },
  ]);
  t.is(
    error.message,
    'invalid configuration:\n  PORT: "99999" is not a port number (0-65535; 0 picks a free port)\n  URL: "http://x" is not a db:// URL\n  MODE: "c" is not a or b',
  );
});

test('secrets are never shown; a marked value is shown masked', (t) => {
  const secret = refusal({ TOKEN: 'hunter2' });
  t.is(secret.details[0]?.reason, 'is too short');
  t.false(secret.message.includes('hunter2'));
  t.is(refusal({ URL: 'pg://u:hunter2@h' }).details[0]?.reason, '"pg://u:***@h" is not a db:// URL');
});

test('checks across variables run with the rest and do not repeat a refused variable', (t) => {
  t.deepEqual(
    refusal({ MODE: 'b', PORT: 'x' }).details.map((detail) => detail.reason),
    ['"x" is not a port number (0-65535; 0 picks a free port)', 'is required when MODE=b'],
  );
  t.deepEqual(
    refusal({ MODE: 'b', URL: 'nope' }).details.map((detail) => detail.field),
    ['URL'],
  );
  t.is(parseEnv(schema, { MODE: 'b', URL: 'db://h' }).URL, 'db://h');
});

test('merged schemas read each shared variable once and keep both sets of checks', (t) => {
  const other = envSchema({ PORT: SHARED_VARIABLES.PORT, ENDPOINT: httpUrlVariable() }, (values, refuse) => {
    if (values['ENDPOINT'] === undefined) refuse('ENDPOINT', 'is required', { showValue: false });
  });
  const merged = mergeEnvSchemas(schema, other);
  t.deepEqual(Object.keys(merged.shape), ['PORT', 'URL', 'TOKEN', 'MODE', 'ENDPOINT']);
  t.is(merged.checks.length, 2);
  const error = t.throws(() => parseEnv(merged, { MODE: 'b', ENDPOINT: 'ftp://x' }), { instanceOf: SwitchyardError });
  t.deepEqual(
    error?.details.map((detail) => detail.field),
    ['URL', 'ENDPOINT'],
  );
  t.is(parseEnv(merged, { ENDPOINT: 'https://example.com/a/' }).ENDPOINT, 'https://example.com/a');
});
