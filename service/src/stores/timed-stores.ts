import { performance } from 'node:perf_hooks';
import type { AssetStore, BlobStore, KeyStore, RouteStore, UploadStore } from '@switchyard/core';
import { HistogramFamily, type HistogramCell, type Registry } from '@switchyard/runtime';

/** Store calls take from well under a millisecond (SQLite) to seconds (a large S3 put). */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Stores {
  readonly routeStore: RouteStore;
  readonly assetStore: AssetStore;
  readonly blobStore: BlobStore;
  readonly uploadStore?: UploadStore | undefined;
  readonly keyStore?: KeyStore | undefined;
}

/**
 * The stores with every call timed into `switchyard_store_operation_seconds`
 * by store, operation and outcome (`ok` or `error`): how long the database
 * and the blob store take, seen from the service. A call that returns a
 * stream or an iterable is timed until it returns it.
 */
export function timedStores<S extends Stores>(stores: S, registry: Registry): S {
  const histogram = new HistogramFamily(registry, {
    name: 'switchyard_store_operation_seconds',
    help: 'Time of calls to the route, asset, upload, key and blob stores, by operation and outcome.',
    labelNames: ['store', 'operation', 'outcome'] as const,
    buckets: BUCKETS,
  });
  const cells = new Map<string, HistogramCell>();
  const cellOf = (store: string, operation: string, outcome: 'ok' | 'error'): HistogramCell => {
    const key = `${store} ${operation} ${outcome}`;
    let cell = cells.get(key);
    if (cell === undefined) cells.set(key, (cell = histogram.cell({ store, operation, outcome })));
    return cell;
  };
  const timed = <T extends object>(target: T, store: string): T => {
    // One wrapper per method, made on its first access (and again only if the property comes to hold another function).
    const wrappers = new Map<string, { readonly method: unknown; readonly wrapper: (...args: unknown[]) => unknown }>();
    return new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        const cached = wrappers.get(property);
        if (cached?.method === value) return cached.wrapper;
        const wrapper = (...args: unknown[]): unknown => {
          const started = performance.now();
          const observe = (outcome: 'ok' | 'error'): void => cellOf(store, property, outcome).observe((performance.now() - started) / 1000);
          let result: unknown;
          try {
            result = (value as (...args: unknown[]) => unknown).apply(object, args);
          } catch (error) {
            observe('error');
            throw error;
          }
          if (!(result instanceof Promise)) {
            observe('ok');
            return result;
          }
          return result.then(
            (resolved: unknown) => {
              observe('ok');
              return resolved;
            },
            (error: unknown) => {
              observe('error');
              throw error;
            },
          );
        };
        wrappers.set(property, { method: value, wrapper });
        return wrapper;
      },
    });
  };
  return {
    ...stores,
    routeStore: timed(stores.routeStore, 'route'),
    assetStore: timed(stores.assetStore, 'asset'),
    blobStore: timed(stores.blobStore, 'blob'),
    ...(stores.uploadStore ? { uploadStore: timed(stores.uploadStore, 'upload') } : {}),
    ...(stores.keyStore ? { keyStore: timed(stores.keyStore, 'key') } : {}),
  };
}
