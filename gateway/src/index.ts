// The REST /v1 and Connect gateway, and file serving, in front of the gRPC service.

export { startGateway, SHUTDOWN_TIMEOUT_MS } from './start.js';
export type { GatewayHandle, ServiceChannel, StartGatewayOptions } from './start.js';
export { loadGatewayConfig, gatewayConfigFrom, gatewayEnv, resolveCdnUrl, GATEWAY_DEFAULTS } from './config.js';
export type { GatewayConfig, GatewayEnv, ClientLimits, CorsOrigins } from './config.js';
export { GATEWAY_VARIABLE_DOCS } from './config-docs.js';
export { DEFAULT_VALIDATOR_CACHE } from './files/validator-cache.js';
export type { ValidatorCacheConfig } from './files/validator-cache.js';
export { listen } from './http/listener.js';
export type { HttpListener } from './http/listener.js';
export { createGatewayLogger } from './logger.js';
export { gatewayOpenApiDocument } from './openapi/offline-document.js';
export { gatewayCommand, GATEWAY_USAGE } from './commands/gateway.js';
