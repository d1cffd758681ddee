// Concurrency: two service processes and two gateway processes over one MySQL database and
// one blob store (s3rver), driven over REST through both gateways at once. Extends
// test/grpc/two-instances.test.ts (two in-process services over gRPC) to the deployable
// processes, with the migrations racing at start-up, and to many uploads at once.
// Serial on purpose: the replace test runs gc with no grace period, which is only safe
// when no upload is between writing its blob and writing its record.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { openStorage } from '@switchyard/service';
import type { Child } from '../rest/support/processes.js';
import { mintToken } from '../grpc/support/tokens.js';
import { audit, mysqlS3Deployment, runGc, ServiceProcess, sha256, startGatewayProcess, type Deployment } from './support/deployments.js';
import { scaled } from './support/soak.js';

const ROUTE_CREATES = scaled(20, 100);
const REPLACES = scaled(20, 50);
const UPLOADS = scaled(50, 200);
const TUS_ROUNDS = scaled(8, 40);

interface AssetView {
  readonly id: string;
  readonly url: string;
  readonly sha256: string;
  readonly size: number;
  readonly type: string;
  readonly label: string;
}

interface Stack {
  readonly deployment: Deployment;
  readonly services: ServiceProcess[];
  readonly gateways: { child: Child; url: string }[];
}

const deployment = await mysqlS3Deployment();
if (!deployment) {
  test.skip('two services and two gateways: MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () => undefined);
} else {
  defineTests(deployment);
}

function defineTests(deployment: Deployment): void {
  let stack: Stack;

  test.before(async () => {
    // Both services start at once on an empty database: their migrations race, and one must wait for the other.
    const services = await Promise.all([ServiceProcess.start(deployment), ServiceProcess.start(deployment)]);
    const gateways = await Promise.all(services.map((service) => startGatewayProcess(service.address)));
    stack = { deployment, services, gateways };
  });
  test.after.always(async () => {
    for (const gateway of stack?.gateways ?? []) await gateway.child.stop();
    for (const service of stack?.services ?? []) await service.stop();
    await deployment.cleanup();
  });

  /** The gateway for the i-th request: alternating, so every race spans both processes. */
  const gateway = (i: number) => stack.gateways[i % stack.gateways.length]!.url;
  const authFor = async (workspace: string) => ({ authorization: `Bearer ${await mintToken(deployment.secret, { workspace })}` });

  function upload(base: string, auth: Record<string, string>, bytes: Buffer, label: string): Promise<Response> {
    const form = new FormData();
    form.append('label', label);
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), 'data.bin');
    return fetch(`${base}/v1/assets/upload`, { method: 'POST', headers: auth, body: form });
  }

  function replace(base: string, auth: Record<string, string>, id: string, bytes: Buffer): Promise<Response> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), 'data.bin');
    return fetch(`${base}/v1/assets/${id}/replace`, { method: 'POST', headers: auth, body: form });
  }

  async function served(base: string, asset: AssetView): Promise<{ status: number; sha256: string; size: number }> {
    const response = await fetch(`${base}${new URL(asset.url).pathname}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { status: response.status, sha256: sha256(bytes), size: bytes.length };
  }

  /** Blob keys and record keys of one workspace, straight from storage. */
  async function storedFor(
    workspace: string,
  ): Promise<{ rows: { id: string; blob_key: string }[]; keptKeys: string[]; blobKeys: string[] }> {
    const storage = await openStorage(deployment.storage, { migrate: false });
    try {
      const rows = await storage.db.selectFrom('assets').select(['id', 'blob_key']).where('workspace', '=', workspace).execute();
      // The files replaces kept as versions (keepVersions) hold their blobs too.
      const versions = await storage.db.selectFrom('asset_versions').select('blob_key').where('workspace', '=', workspace).execute();
      const keptKeys = [...rows, ...versions].map((row) => row.blob_key).sort();
      const blobKeys: string[] = [];
      for await (const blob of storage.blobStore.list()) if (blob.key.startsWith(`${workspace}/`)) blobKeys.push(blob.key);
      return { rows, keptKeys, blobKeys: blobKeys.sort() };
    } finally {
      await storage.close();
    }
  }

  test.serial(
    `${ROUTE_CREATES} concurrent creates of one route across both gateways: exactly one 201, the rest 409 already_exists, one row`,
    async (t) => {
      const workspace = `routes-${randomBytes(4).toString('hex')}`;
      const auth = { ...(await authFor(workspace)), 'content-type': 'application/json' };
      const responses = await Promise.all(
        Array.from({ length: ROUTE_CREATES }, (_, i) =>
          fetch(`${gateway(i)}/v1/routing`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify({ method: 'PUT', path: '/race/:id', handler: `handler${i}` }),
          }),
        ),
      );
      const bodies = await Promise.all(responses.map((response) => response.json() as Promise<Record<string, unknown>>));
      const statuses = responses.map((response) => response.status);
      t.is(statuses.filter((status) => status === 201).length, 1, `statuses: ${statuses.join(' ')}`);
      t.is(statuses.filter((status) => status === 409).length, ROUTE_CREATES - 1);
      for (const [i, body] of bodies.entries()) if (statuses[i] === 409) t.is(body['code'], 'already_exists');

      const winner = bodies[statuses.indexOf(201)]!;
      // Both gateways (and so both services) see the winner, and it alone.
      for (const base of stack.gateways.map((g) => g.url)) {
        const match = await fetch(`${base}/v1/routing:match?method=PUT&path=/race/7`, { headers: auth });
        t.is(match.status, 200);
        t.is(((await match.json()) as { route?: { id?: string } }).route?.id, String(winner['id']));
      }
      const storage = await openStorage(deployment.storage, { migrate: false });
      try {
        const rows = await storage.db.selectFrom('routes').select('id').where('workspace', '=', workspace).execute();
        t.deepEqual(
          rows.map((row) => row.id),
          [String(winner['id'])],
          'one row',
        );
      } finally {
        await storage.close();
      }
    },
  );

  test.serial(
    `${REPLACES} concurrent replaces of one asset across both gateways: the record matches its bytes; no blob lost or leaked, before or after gc`,
    async (t) => {
      const workspace = `replaces-${randomBytes(4).toString('hex')}`;
      const auth = await authFor(workspace);
      const created = await upload(gateway(0), auth, randomBytes(50_000), 'contended');
      t.is(created.status, 201);
      const original = (await created.json()) as AssetView;
      const contents = Array.from({ length: REPLACES }, (_, i) => randomBytes(20_000 + i * 1000));
      const responses = await Promise.all(contents.map((bytes, i) => replace(gateway(i), auth, original.id, bytes)));
      const outcomes = await Promise.all(
        responses.map(async (response) => ({ status: response.status, body: (await response.json()) as AssetView & { code?: string } })),
      );
      const won = outcomes.filter((outcome) => outcome.status === 200);
      const lost = outcomes.filter((outcome) => outcome.status !== 200);
      t.true(won.length >= 1, 'at least one replace wins');
      for (const outcome of lost)
        t.deepEqual([outcome.status, outcome.body.code], [409, 'aborted'], 'a losing replace is 409 aborted, nothing else');
      for (const [i, outcome] of outcomes.entries())
        if (outcome.status === 200) t.is(outcome.body.sha256, sha256(contents[i]!), 'each 200 names the bytes it sent');

      const check = async (when: string) => {
        for (const base of stack.gateways.map((g) => g.url)) {
          const response = await fetch(`${base}/v1/assets/${original.id}`, { headers: auth });
          const record = (await response.json()) as AssetView;
          t.is(record.label, 'contended');
          t.true(
            won.some((outcome) => outcome.body.sha256 === record.sha256),
            `${when}: the record holds one of the acknowledged replaces`,
          );
          const file = await served(base, record);
          t.is(file.status, 200);
          t.is(file.sha256, record.sha256, `${when}: the record points at exactly its bytes`);
          t.is(file.size, record.size);
        }
        const stored = await storedFor(workspace);
        t.deepEqual(stored.blobKeys, stored.keptKeys, `${when}: exactly the current blob and the kept versions' are stored`);
        t.true(stored.keptKeys.length <= 1 + 5, `${when}: at most the default keepVersions (5) versions`);
      };
      await check('before gc');
      const gc = await runGc(deployment, '--grace', '0');
      t.is(gc.code, 0, gc.output);
      await check('after gc');
      t.deepEqual((await audit(deployment)).broken, [], 'no record anywhere points at a missing or different blob');
    },
  );

  test.serial(
    `${UPLOADS} concurrent uploads split across both gateways: each reads back with its sha256, and records and blobs match one for one`,
    async (t) => {
      const workspace = `uploads-${randomBytes(4).toString('hex')}`;
      const auth = await authFor(workspace);
      const started = performance.now();
      const contents = Array.from({ length: UPLOADS }, (_, i) => randomBytes(1 + ((i * 7919) % 200_000)));
      const responses = await Promise.all(contents.map((bytes, i) => upload(gateway(i), auth, bytes, `upload ${i}`)));
      const assets = await Promise.all(responses.map((response) => response.json() as Promise<AssetView>));
      const seconds = (performance.now() - started) / 1000;
      t.deepEqual(
        responses.map((response) => response.status).filter((status) => status !== 201),
        [],
        'every upload is acknowledged (the bounds and rate limit are far above these figures)',
      );
      t.is(new Set(assets.map((asset) => asset.id)).size, UPLOADS, 'every upload got its own id');

      const queue = assets.map((asset, i) => ({ asset, i }));
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) {
            const { asset, i } = next;
            t.is(asset.sha256, sha256(contents[i]!), `upload ${i} acknowledged with the sha256 of its bytes`);
            // Read back through the other gateway, i.e. the other service.
            const response = await fetch(`${gateway(i + 1)}/v1/assets/${asset.id}`, { headers: auth });
            const record = (await response.json()) as AssetView;
            t.is(record.sha256, asset.sha256);
            t.is(record.label, `upload ${i}`);
            const file = await served(gateway(i + 1), record);
            t.is(file.sha256, asset.sha256, `upload ${i} serves its bytes`);
          }
        }),
      );
      const stored = await storedFor(workspace);
      t.is(stored.rows.length, UPLOADS, 'one record per acknowledged upload');
      t.deepEqual(stored.blobKeys, stored.rows.map((row) => row.blob_key).sort(), 'one blob per record, no orphan');
      const rss = await Promise.all(
        [...stack.services.map((s) => s.child), ...stack.gateways.map((g) => g.child)].map((child) => residentMiB(child.process.pid)),
      );
      t.log(
        `${UPLOADS} uploads through 2 gateways in ${seconds.toFixed(1)} s; resident memory afterwards: services ${rss.slice(0, 2).join(' and ')} MiB, gateways ${rss.slice(2).join(' and ')} MiB`,
      );
    },
  );

  test.serial(
    `${TUS_ROUNDS} rounds of tus concatenations racing across both gateways: one asset per set of partials, a termination never breaks a finish, never a 5xx`,
    async (t) => {
      const workspace = `tus-${randomBytes(4).toString('hex')}`;
      const auth = { ...(await authFor(workspace)), 'tus-resumable': '1.0.0' };
      const statuses = new Map<string, number>();
      const count = (what: string, response: Response) =>
        statuses.set(`${what} ${response.status}`, (statuses.get(`${what} ${response.status}`) ?? 0) + 1);
      const leftovers: string[] = [];
      let assets = 0;
      for (let round = 0; round < TUS_ROUNDS; round++) {
        const pieces = [randomBytes(1_000_000 + round), randomBytes(700_000)];
        const partials = await Promise.all(
          pieces.map(async (piece, i) => {
            const headers = {
              ...auth,
              'upload-length': String(piece.length),
              'upload-concat': 'partial',
              'content-type': 'application/offset+octet-stream',
            };
            const created = await fetch(`${gateway(i)}/v1/uploads`, { method: 'POST', headers, body: new Uint8Array(piece) });
            t.is(created.status, 201, await created.clone().text());
            return new URL(created.headers.get('location')!).pathname;
          }),
        );
        leftovers.push(...partials);
        // Two finals of the same partials through the two services, or a final and a termination of one of its partials.
        const final = (i: number) =>
          fetch(`${gateway(i)}/v1/uploads`, { method: 'POST', headers: { ...auth, 'upload-concat': `final;${partials.join(' ')}` } });
        const rival =
          round % 2 === 0
            ? final(round + 1)
            : fetch(`${gateway(round + 1)}${partials[round % 4 === 1 ? 0 : 1]}`, { method: 'DELETE', headers: auth });
        const [first, second] = await Promise.all([final(round), rival]);
        count('final', first);
        count(round % 2 === 0 ? 'final' : 'delete', second);
        const made = [first, ...(round % 2 === 0 ? [second] : [])]
          .map((answer) => answer.headers.get('switchyard-asset-id'))
          .filter((id) => id !== null);
        if (round % 2 === 0) t.is(made.length, 1, `round ${round}: one asset from one set of partials (${first.status}, ${second.status})`);
        for (const id of made) {
          const asset = (await (await fetch(`${gateway(round)}/v1/assets/${id}`, { headers: auth })).json()) as AssetView;
          t.is(asset.sha256, sha256(Buffer.concat(pieces)), `round ${round}: the asset is the partials' bytes in order`);
          assets += 1;
        }
      }
      t.log(`${TUS_ROUNDS} rounds: ${[...statuses].map(([what, n]) => `${what}×${n}`).join(' ')}`);
      t.deepEqual(
        [...statuses.keys()].filter((key) => Number(key.split(' ')[1]) >= 500),
        [],
        'never a 5xx',
      );
      // What a refused request left is free again: terminating it takes its bytes.
      for (const [i, path] of leftovers.entries()) {
        const answer = await fetch(`${gateway(i)}${path}`, { method: 'DELETE', headers: auth });
        t.true(answer.status === 204 || answer.status === 404, `${answer.status}`);
      }
      const stored = await storedFor(workspace);
      t.is(stored.rows.length, assets, 'one record per asset made');
      t.deepEqual(stored.blobKeys, stored.rows.map((row) => row.blob_key).sort(), 'one blob per record');
      const storage = await openStorage(deployment.storage, { migrate: false });
      try {
        const parts: string[] = [];
        for await (const blob of storage.blobStore.list()) if (blob.key.startsWith(`_uploads/${workspace}/`)) parts.push(blob.key);
        t.deepEqual(parts, [], 'no part of any upload is left in the bucket');
      } finally {
        await storage.close();
      }
    },
  );
}

/** A process's resident memory in MiB, from /proc (Linux); '?' elsewhere. */
async function residentMiB(pid: number | undefined): Promise<string> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kib === undefined ? '?' : (Number(kib) / 1024).toFixed(0);
}
