export { envSchema, mergeEnvSchemas, parseEnv, shownAs, deepFreeze } from './env-schema.js';
export type { EnvCheck, EnvSchema, EnvShape, EnvValues, Refuse } from './env-schema.js';
export { rule, reasonedRule, Refusal, no, redactUrlPassword, wholeNumber, wholeNumberVariable, hostVariable, portVariable, byteCountVariable, logLevelVariable, httpUrl, httpUrlVariable, secretVariable, metricsPortVariable, SHARED_VARIABLES } from './variables.js';
export type { MetricsPort } from './variables.js';
