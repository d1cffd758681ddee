// A split gateway with EVENTS_URL follows the services' asset changes on the
// broker (gateway/src/files/validator-broker.ts): a file deleted, made private
// or replaced through another gateway or the service's gRPC port stops being
// answered 304 from its validator cache once the change's message arrives,
// though the cache's TTL here is ten minutes; a change made while the broker
// was away counts once it is back (the cache is emptied then). While the feed
// is up, a public file's GETs are answered from A's memory too, until a change
// to its asset is heard.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createSwitchyardClient } from '@switchyard/client';
import { createGatewayLogger, listen, loadGatewayConfig, startGateway, type GatewayHandle } from '@switchyard/gateway';
import { startNats, startRedis, type TestBroker } from '../support/brokers.js';
import { eventually } from '../support/eventually.js';
import { form, json } from '../rest/support/http.js';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';

/** Long enough that only a message, never the TTL, can end a cached 304 in this file. */
const LONG_TTL_MS = 10 * 60_000;
/** A hang catcher for a message to arrive: it does not measure how fast (bench/ does). */
const HEARD_WITHIN_MS = 20_000;
const FEED_UP = 'events feed up';

interface AssetJson {
  id: string;
  url: string;
  sha256: string;
}

for (const [kind, startBroker] of [
  ['redis', startRedis],
  ['nats', startNats],
] as const) {
  let broker: TestBroker;
  /** Service and gateway A (EVENTS_URL set: it follows the broker), joined by gRPC. */
  let stack: Stack;
  /** Gateway B: another instance in front of the same service. */
  let other: GatewayHandle;

  test.before(async () => {
    broker = await startBroker();
    stack = await startStack(
      { RATE_LIMIT_PER_SECOND: '0', EVENTS_URL: broker.url },
      { channel: 'grpc', fileValidators: { maxAssets: 100, ttlMs: LONG_TTL_MS } },
    );
    const listener = await listen('127.0.0.1', 0);
    const config = loadGatewayConfig({
      HOST: '127.0.0.1',
      PORT: String(listener.port),
      CONSOLE: 'off',
      SERVICE_URL: `http://${stack.service.address}`,
    });
    other = await startGateway(
      { ...config, cdnUrl: stack.cdnUrl },
      {
        serviceUrl: `http://${stack.service.address}`,
        log: createGatewayLogger('warn', { write: () => {} }),
        listener,
        shutdownTimeoutMs: 2_000,
      },
    );
    await feedUps(1);
  });
  test.after.always(async () => {
    await other?.close();
    await stack?.stop();
    await broker?.close();
  });

  /** Resolves once gateway A has logged its feed up `count` times. */
  const feedUps = (count: number) =>
    eventually(() => stack.logLines.filter((line) => line.includes(FEED_UP)).length >= count, {
      timeout: HEARD_WITHIN_MS,
      message: `gateway A's feed up ${count} time(s)`,
    });

  const upload = async (headers: Record<string, string>): Promise<AssetJson> => {
    const bytes = { bytes: new Uint8Array(randomBytes(2048)), filename: 'bytes.bin', type: 'application/octet-stream' };
    return wrote(json<AssetJson>(await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form([['file', bytes]]) })));
  };

  let requests = 0;
  /** A revalidation on gateway A under a request id of its own; `called` says whether the service was asked. */
  const revalidate = async (asset: AssetJson): Promise<{ status: number; called: boolean }> => {
    const id = `feed-${kind}-${process.pid}-${++requests}`;
    const response = await fetch(asset.url, { headers: { 'if-none-match': `"${asset.sha256}"`, 'x-request-id': id } });
    await response.arrayBuffer();
    return { status: response.status, called: stack.serviceLogLines.some((line) => line.includes(`"requestId":"${id}"`)) };
  };

  /** Asset writes made in this file's deployment so far: each is one message on the broker. */
  let writes = 0;
  const wrote = <T>(result: T): T => ((writes += 1), result);
  /** Resolves once gateway A has heard every message of the writes made so far (they arrive in order). */
  const caughtUp = () =>
    eventually(async () => (await feedMessages()) >= writes, {
      timeout: HEARD_WITHIN_MS,
      message: `gateway A hearing ${writes} asset messages`,
    });
  const feedMessages = async () => {
    const found = (await stack.metrics.getMetricsAsJSON()).find((entry) => entry.name === 'switchyard_gateway_asset_feed_messages_total');
    return Number(found?.values[0]?.value ?? 0);
  };

  /** Revalidated twice on A once it heard every write so far (an upload's own message would drop what the first kept): the second 304 comes from its cache. */
  const cached = async (t: { is(a: unknown, b: unknown): void; false(a: boolean, m?: string): void }, asset: AssetJson) => {
    await caughtUp();
    t.is((await revalidate(asset)).status, 304);
    const again = await revalidate(asset);
    t.is(again.status, 304);
    t.false(again.called, 'the second 304 made no service call');
  };

  /** A's answer once the change's message has been heard: the first revalidation the service answers. */
  const heard = (asset: AssetJson) =>
    eventually(
      async () => {
        const answer = await revalidate(asset);
        return answer.called ? answer.status : undefined;
      },
      { timeout: HEARD_WITHIN_MS, interval: 20, message: `gateway A asks the service about ${asset.id} again` },
    );

  test.serial(`${kind}: a delete through another gateway, and one over the gRPC port, end gateway A's 304s`, async (t) => {
    const workspace = freshWorkspace();
    const headers = await stack.auth(workspace);
    const viaOther = await upload(headers);
    await cached(t, viaOther);
    t.is((await fetch(`${other.url}/v1/assets/${viaOther.id}`, { method: 'DELETE', headers })).status, 204);
    writes += 1;
    t.is(await heard(viaOther), 404);

    const grpc = createSwitchyardClient({ baseUrl: `http://${stack.service.address}`, token: await stack.token(workspace) });
    t.teardown(() => grpc.close());
    const viaGrpc = await upload(headers);
    await cached(t, viaGrpc);
    await grpc.assets.deleteAsset({ id: viaGrpc.id });
    writes += 1;
    t.is(await heard(viaGrpc), 404);
  });

  test.serial(`${kind}: made private and replaced elsewhere: no 304 for the old file; an untouched asset stays cached`, async (t) => {
    const workspace = freshWorkspace();
    const headers = await stack.auth(workspace);
    const hidden = await upload(headers);
    const replaced = await upload(headers);
    const untouched = await upload(headers);
    for (const asset of [hidden, replaced, untouched]) await cached(t, asset);
    const patch = await fetch(`${other.url}/v1/assets/${hidden.id}`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ visibility: 'private' }),
    });
    t.is(patch.status, 200);
    writes += 1;
    t.is(await heard(hidden), 403);
    const bytes = { bytes: new Uint8Array(randomBytes(2048)), filename: 'new.bin', type: 'application/octet-stream' };
    const replace = await fetch(`${other.url}/v1/assets/${replaced.id}/replace`, {
      method: 'POST',
      headers,
      body: form([['file', bytes]]),
    });
    t.is(replace.status, 200);
    writes += 1;
    t.is(await heard(replaced), 404, 'the old url of a replaced asset');
    // Every message so far heard, the replace's last: none of them named the untouched asset.
    await caughtUp();
    const still = await revalidate(untouched);
    t.is(still.status, 304);
    t.false(still.called, 'a message names the assets it changed: the others stay cached');
  });

  /** A GET on gateway A under a request id of its own: its status, body, and whether the service was asked. */
  const getFile = async (url: string) => {
    const id = `feed-get-${kind}-${process.pid}-${++requests}`;
    const response = await fetch(url, { headers: { 'x-request-id': id } });
    const body = Buffer.from(await response.arrayBuffer());
    return { status: response.status, body, called: stack.serviceLogLines.some((line) => line.includes(`"requestId":"${id}"`)) };
  };
  const uploadBytes = async (headers: Record<string, string>) => {
    const bytes = randomBytes(2048);
    const file = { bytes: new Uint8Array(bytes), filename: 'bytes.bin', type: 'application/octet-stream' };
    const response = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers, body: form([['file', file]]) });
    return { asset: wrote(await json<AssetJson>(response)), bytes };
  };
  /** Once A heard every write so far, a GET reads the service and a later one comes from A's memory, the same bytes. */
  const fromMemory = async (
    t: { is(a: unknown, b: unknown): void; true(a: boolean, m?: string): void },
    { asset, bytes }: { asset: AssetJson; bytes: Buffer },
  ) => {
    await caughtUp();
    t.is((await getFile(asset.url)).status, 200);
    // A's answer is kept once the service's stream ends, which may be after the client has every byte.
    const again = await eventually(
      async () => {
        const answer = await getFile(asset.url);
        return answer.called ? undefined : answer;
      },
      { timeout: HEARD_WITHIN_MS, interval: 20, message: `a GET of ${asset.id} answered from gateway A's memory` },
    );
    t.is(again.status, 200);
    t.true(again.body.equals(bytes));
  };
  /** A's answer to a GET once the change's message has been heard: the first GET the service answers. */
  const heardGet = (url: string) =>
    eventually(
      async () => {
        const answer = await getFile(url);
        return answer.called ? answer : undefined;
      },
      { timeout: HEARD_WITHIN_MS, interval: 20, message: `gateway A asks the service about ${url} again` },
    );

  test.serial(
    `${kind}: GETs from memory end once a delete, a replace or private made elsewhere is heard (404, the new bytes, 403)`,
    async (t) => {
      const workspace = freshWorkspace();
      const headers = await stack.auth(workspace);
      const grpc = createSwitchyardClient({ baseUrl: `http://${stack.service.address}`, token: await stack.token(workspace) });
      t.teardown(() => grpc.close());

      const deleted = await uploadBytes(headers);
      await fromMemory(t, deleted);
      t.is((await fetch(`${other.url}/v1/assets/${deleted.asset.id}`, { method: 'DELETE', headers })).status, 204);
      writes += 1;
      t.is((await heardGet(deleted.asset.url)).status, 404, 'deleted through another gateway');

      const replaced = await uploadBytes(headers);
      await fromMemory(t, replaced);
      const newBytes = randomBytes(2048);
      const after = wrote(await grpc.replaceAsset(replaced.asset.id, new Uint8Array(newBytes)));
      t.is((await heardGet(replaced.asset.url)).status, 404, 'the old url of an asset replaced over gRPC');
      const fresh = await getFile(after.url);
      t.is(fresh.status, 200);
      t.true(fresh.body.equals(newBytes), 'the new bytes');

      const hidden = await uploadBytes(headers);
      await fromMemory(t, hidden);
      await grpc.assets.updateAsset({ id: hidden.asset.id, visibility: 'private' });
      writes += 1;
      t.is((await heardGet(hidden.asset.url)).status, 403, 'made private over gRPC');
    },
  );

  test.serial(`${kind}: a delete made while the broker was away counts once the feed is back`, async (t) => {
    const headers = await stack.auth(freshWorkspace());
    const asset = await upload(headers);
    await cached(t, asset);
    const ups = stack.logLines.filter((line) => line.includes(FEED_UP)).length;
    await broker.stop();
    t.is((await fetch(`${other.url}/v1/assets/${asset.id}`, { method: 'DELETE', headers })).status, 204);
    writes += 1;
    await broker.start();
    await feedUps(ups + 1);
    const after = await revalidate(asset);
    t.is(after.status, 404);
    t.true(after.called, 'the cache was emptied when the feed came back');
  });
}
