// @switchyard/dispatch: a service's routing as data. The dispatcher follows a
// live route table; the adapters (subpaths) fit it to each framework:
// `@switchyard/dispatch/fetch`, `/express`, `/fastify`, `/node`.
export { createDispatcher } from './dispatcher.js';
export type { Dispatcher, DispatcherFor, DispatcherOptions, DispatchLogger, DispatchMetrics } from './dispatcher.js';
export type { DispatchContext, NativeContext } from './context.js';
export type { Handler, HandlerRegistry, Middleware, MiddlewareRegistry, Next } from './registry.js';
export type { RouteTableSource } from './table-source.js';
export type { UnknownNames } from './unknown-names.js';
export { ErrorAnswer } from './error-answer.js';
export type { ErrorBody, ErrorCode } from './error-answer.js';
