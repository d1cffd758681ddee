import type { Transport } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import type { Timers } from '@switchyard/core';
import { withDirectCalls } from './direct-transport.js';

/** Connect's gRPC transport, with the direct unary and upload paths, over one HTTP/2 connection. */
export interface ServiceConnection {
  readonly transport: Transport;
  /** Ends the connection; calls still running on it fail. */
  close(): void;
}

/** The largest reply message accepted (a file's chunks are smaller; a page of 1,000 assets fits). */
const READ_MAX_BYTES = 4 * 1024 * 1024;

/**
 * One multiplexed HTTP/2 session to `url` (`http://host:port`). Pings find a
 * dead service between calls; messages go uncompressed, since file bytes
 * rarely compress and the hop is internal. `servername` keeps TLS checking
 * the configured host name when `url` names one of its resolved addresses.
 * The direct calls' deadlines run on `time` (the system's timers by default).
 */
export function connectService(url: string, servername?: string, time?: Timers): ServiceConnection {
  const sessionManager = new Http2SessionManager(
    url,
    { pingIntervalMs: 30_000, pingTimeoutMs: 10_000, idleConnectionTimeoutMs: 15 * 60_000 },
    servername === undefined ? undefined : { servername },
  );
  const transport = withDirectCalls(
    createGrpcTransport({ baseUrl: url, sessionManager, acceptCompression: [] }),
    sessionManager,
    READ_MAX_BYTES,
    time,
  );
  return { transport, close: () => sessionManager.abort() };
}
