// `@switchyard/core/routes`: route matching without the rest of the core (no
// Node built-ins, no file sniffing), for clients and browsers that keep a
// watched route table.
export { RouteTable } from './route-table.js';
export type { RouteTableEntry, RouteTableMatch } from './route-table.js';
export { SyncedRouteTable } from './synced-route-table.js';
export type { Route, RouteEvent, RouteMatch } from './types.js';
export { sleep, systemTime } from '../clock.js';
export type { TimeSource, Timers, TimerHandle, Clock } from '../clock.js';
