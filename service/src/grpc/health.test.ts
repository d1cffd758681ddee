import test from 'ava';
import { memoryAdapters, SwitchyardError } from '@switchyard/core';
import { eventually } from '@switchyard/core/testing';
import { GrpcClients } from '../../../test/grpc/support/clients.js';
import { LogCapture } from '../../../test/grpc/support/log-capture.js';
import { startService } from '../app.js';
import { loadServiceConfig } from '../config.js';
import type { Storage } from '../stores/open-storage.js';

/** Memory stores whose health check the test switches, standing in for a database that goes away. */
function switchableStorage(): { storage: Storage; setDown(down: boolean): void; closed(): boolean } {
  let down = false;
  let closed = false;
  const storage = {
    ...memoryAdapters(),
    check: async () => {
      if (down) throw new SwitchyardError('unavailable', 'database unreachable');
    },
    close: async () => {
      closed = true;
    },
  } satisfies Storage;
  return { storage, setDown: (value) => (down = value), closed: () => closed };
}

/** Polls a real RPC until the periodic check has run and reports `expected`; 10 s catches a hang. */
async function until(read: () => Promise<string>, expected: string): Promise<void> {
  await eventually(async () => (await read()) === expected, { timeout: 10_000, interval: 20, message: `health ${expected}` });
}

const config = loadServiceConfig({ HOST: '127.0.0.1', GRPC_PORT: '0', AUTH_SECRET: 'h'.repeat(32), DATA_DIR: '/nonexistent-unused' });

test('health follows the storage check: NOT_SERVING while it fails, SERVING again when it recovers', async (t) => {
  const switchable = switchableStorage();
  const logs = new LogCapture();
  const service = await startService(config, { storage: switchable.storage, logger: logs.logger, healthIntervalMs: 25 });
  const clients = new GrpcClients(service.address);
  try {
    t.is(await clients.healthCheck(''), 'SERVING');
    switchable.setDown(true);
    await until(() => clients.healthCheck(''), 'NOT_SERVING');
    for (const name of ['switchyard.v1.RouteService', 'switchyard.v1.AssetService', 'switchyard.v1.FileService']) {
      t.is(await clients.healthCheck(name), 'NOT_SERVING', name);
    }
    t.truthy(
      logs.lines().find((line) => /NOT_SERVING/.test(String(line['msg']))),
      'the flip is logged',
    );
    switchable.setDown(false);
    await until(() => clients.healthCheck('switchyard.v1.AssetService'), 'SERVING');
    t.is(await clients.healthCheck(''), 'SERVING');
  } finally {
    clients.close();
    await service.close();
  }
  t.false(switchable.closed(), 'storage passed in stays open: its owner closes it');
});

test('a service that starts while storage is down reports NOT_SERVING from the first call', async (t) => {
  const switchable = switchableStorage();
  switchable.setDown(true);
  const service = await startService(config, { storage: switchable.storage, logger: new LogCapture().logger, healthIntervalMs: 60_000 });
  const clients = new GrpcClients(service.address);
  try {
    t.is(await clients.healthCheck(''), 'NOT_SERVING');
  } finally {
    clients.close();
    await service.close();
  }
});
