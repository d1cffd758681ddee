import { Worker } from 'node:worker_threads';
import { ERROR_CODES, SwitchyardError, type ErrorCode } from '../../../lib/src/errors.js';
import type { ServiceHandle } from '../app.js';
import type { ServiceConfig } from '../config.js';
import type { FromServiceThread, ThreadError, ToServiceThread } from './messages.js';

/** Beside this module, with its extension (.ts under tsx, .js once compiled). */
const ENTRY = new URL(`./service-thread-entry${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url).href;

/**
 * Starts the gRPC service on a worker thread of this process, so the REST
 * gateway and the service each get an event loop (and a core) of their own
 * while staying one process (`npm start`). They still talk over gRPC on
 * loopback: the service behaves exactly as when it runs alone.
 *
 * Resolves once the service listens; rejects with the worker's start-up error.
 * `onCrash` is told if the service thread dies after that (an uncaught error):
 * the process cannot serve without it.
 */
export function startServiceThread(config: ServiceConfig, onCrash: (error: Error) => void): Promise<ServiceHandle> {
  const worker = new Worker(bootstrap(ENTRY), { eval: true, workerData: config });
  let closing: Promise<void> | undefined;

  return new Promise<ServiceHandle>((resolve, reject) => {
    let started = false;
    const send = (message: ToServiceThread): void => worker.postMessage(message);
    const closed = new Promise<void>((resolveClosed, rejectClosed) => {
      worker.on('message', (message: FromServiceThread) => {
        switch (message.type) {
          case 'listening':
            started = true;
            resolve(
              Object.freeze({
                address: message.address,
                port: message.port,
                close: () => (closing ??= (send({ type: 'close' }), closed.finally(() => worker.terminate()).then(() => undefined))),
              }),
            );
            break;
          case 'failed':
            reject(revive(message.error));
            break;
          case 'closed':
            if (message.error) rejectClosed(revive(message.error));
            else resolveClosed();
            break;
        }
      });
      worker.on('error', (error) => {
        if (!started) reject(error);
        else if (!closing) onCrash(error);
        else rejectClosed(error);
      });
      worker.once('exit', (code) => {
        const error = new Error(`the service thread exited (code ${code})`);
        if (!started) reject(error);
        else if (!closing) onCrash(error);
        rejectClosed(error);
      });
    });
    closed.catch(() => undefined);
  });
}

/**
 * The worker's first module. Under tsx (how `npm start` runs) a worker does not
 * inherit the TypeScript loader on Node 20, so the shim registers it first.
 */
function bootstrap(entry: string): string {
  if (!entry.endsWith('.ts')) return `import(${JSON.stringify(entry)})`;
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
}

/** The worker's error as this thread sees it: our own errors keep their code. */
function revive(error: ThreadError): Error {
  const code = ERROR_CODES.find((known): known is ErrorCode => known === error.code);
  const revived = code ? new SwitchyardError(code, error.message) : new Error(error.message);
  if (error.stack) revived.stack = error.stack;
  return revived;
}
