export { envSchema, mergeEnvSchemas, parseEnv, shownAs, deepFreeze } from './env-schema.js';
export type { EnvCheck, EnvSchema, EnvShape, EnvValues, Refuse } from './env-schema.js';
export {
  rule,
  reasonedRule,
  Refusal,
  no,
  redactUrlPassword,
  wholeNumber,
  wholeNumberVariable,
  hostVariable,
  portVariable,
  byteCountVariable,
  logLevelVariable,
  httpUrl,
  httpUrlVariable,
  secretVariable,
  metricsPortVariable,
  SHARED_VARIABLES,
  brokerUrl,
  eventsConfigFrom,
  isRedisUrl,
} from './variables.js';
export type { EventsConfig, MetricsPort } from './variables.js';
export { DOCUMENTED_PROCESSES, schemaDefault } from './variable-docs.js';
export type { DocumentedProcess, ShownDefault, VariableDoc, VariableDocs } from './variable-docs.js';
export { SHARED_VARIABLE_DOCS } from './shared-variable-docs.js';
