// A SIGKILL of the service mid-upload loses only the append in flight: the client resumes after the restart.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { sha256 } from './support/fixtures.js';
import { json } from './support/http.js';
import { startKillableDeployment } from './support/killable-service.js';
import { mintToken } from './support/tokens.js';
import { startCuttingProxy, tusUpload } from './support/tus.js';

const MiB = 1024 * 1024;

test('SIGKILL of the service mid-upload: after its restart the upload resumes, having lost no more than the append in flight', async (t) => {
  const deployment = await startKillableDeployment('tus-crash');
  const proxy = await startCuttingProxy(deployment.gatewayUrl, []);
  try {
    const workspace = `ws-${randomBytes(4).toString('hex')}`;
    const headers = { authorization: `Bearer ${await mintToken(deployment.secret, { workspace })}` };
    const file = randomBytes(64 * MiB);
    const chunkSize = 8 * MiB;
    let killed: Promise<void> | undefined;
    let answeredBeforeKill = 0;
    const result = await tusUpload(file, {
      endpoint: `${proxy.url}/v1/uploads`,
      headers,
      chunkSize,
      // Long enough for the service to come back.
      retryDelays: Array.from({ length: 40 }, () => 250),
      onChunkComplete: (_size, accepted) => {
        if (killed === undefined) answeredBeforeKill = accepted;
      },
      onProgress: (sent) => {
        if (killed === undefined && sent > 36 * MiB) {
          killed = deployment.killAndRestart();
        }
      },
    });
    await killed;
    t.truthy(killed, 'the service was killed mid-upload');
    t.true(answeredBeforeKill >= 4 * chunkSize, `${answeredBeforeKill} bytes acknowledged before the kill`);
    // Every append acknowledged before the kill survived it: the client never went back behind them.
    const resumedAt = result.exchanges
      .filter((exchange) => exchange.method === 'PATCH' && exchange.sentOffset !== undefined && exchange.sentOffset < answeredBeforeKill)
      .map((exchange) => exchange.sentOffset!);
    t.deepEqual(
      resumedAt,
      [0, chunkSize, 2 * chunkSize, 3 * chunkSize, 4 * chunkSize].filter((offset) => offset < answeredBeforeKill),
      'no append the service acknowledged was sent twice',
    );
    t.true(
      result.exchanges.some(
        (exchange) => exchange.method === 'HEAD' && exchange.status === 200 && (exchange.offset ?? -1) >= answeredBeforeKill,
      ),
      'after the restart the service reports at least what it had acknowledged',
    );
    const asset = await json(await fetch(`${deployment.gatewayUrl}/v1/assets/${result.assetId}`, { headers }));
    t.is(asset['sha256'], sha256(file));
  } finally {
    await proxy.close();
    await deployment.close();
  }
});
