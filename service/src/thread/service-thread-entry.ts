// The gRPC service's thread inside `npm start` (see service-thread.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { startService } from '../app.js';
import { deepFreeze, type ServiceConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { toThreadError, type FromServiceThread, type ToServiceThread } from './messages.js';

const port = parentPort!;
const send = (message: FromServiceThread): void => port.postMessage(message);
// Validated and frozen by the main thread; the copy that crossed over is frozen again.
const config = deepFreeze(workerData as ServiceConfig);
const log = createLogger(config.logLevel);

try {
  const service = await startService(config, { logger: log });
  port.on('message', (message: ToServiceThread) => {
    if (message.type !== 'close') return;
    service.close().then(
      () => send({ type: 'closed' }),
      (error: unknown) => send({ type: 'closed', error: toThreadError(error) }),
    ).finally(() => port.close());
  });
  send({ type: 'listening', address: service.address, port: service.port });
} catch (error) {
  send({ type: 'failed', error: toThreadError(error) });
  port.close();
}
