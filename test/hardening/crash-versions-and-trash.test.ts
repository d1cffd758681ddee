// Crash consistency of versions and trash (issue 43): the service is killed
// with SIGKILL while replaces (each keeps a version), version restores,
// deletes (to the trash), trash restores and purges (from the trash, and
// `purge: true` deletes) are in flight, on SQLite + disk and on MySQL + S3,
// and restarted on the same data. After each restart: every asset is in a
// state its acknowledged and cut calls allow (live with one of the contents
// written to it, in the trash, or purged); every version lists a content of
// its asset and reads back with its sha256; no version, trashed asset or
// record names a missing or different blob; and `gc` leaves exactly the
// blobs something names (no orphan).
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { type Metadata, type ServiceError, status as Status } from '@grpc/grpc-js';
import { bearer } from '../grpc/support/clients.js';
import { mintToken } from '../grpc/support/tokens.js';
import {
  audit,
  CDN_URL,
  mysqlS3Deployment,
  runGc,
  ServiceProcess,
  sha256,
  sqliteDiskDeployment,
  type Deployment,
} from './support/deployments.js';
import { scaled, SOAK } from './support/soak.js';

const ROUNDS = scaled(3, 20);
/** Acknowledged calls a round makes, about, before its kill. */
const CALLS_PER_ROUND = 60;
/** Calls each round keeps going at once. */
const WORKERS = 4;
/** The workspace every call of this file works in. */
const WORKSPACE = 'crash-versions';

/** Where an asset is, as the API shows it: live with a content, in the trash with one, or purged. */
type Place = { readonly where: 'live' | 'trash'; readonly sha256: string } | { readonly where: 'gone' };
const same = (a: Place, b: Place) => a.where === b.where && (a.where === 'gone' || a.sha256 === (b as { sha256: string }).sha256);
const describe = (place: Place) => (place.where === 'gone' ? 'purged' : `${place.where} ${place.sha256.slice(0, 12)}`);

/**
 * What the test knows of one asset: the places it may be in (one after an
 * acknowledged call; more while a call was cut by the kill, as it may have
 * committed), and every content ever written to it (a version holds one).
 */
interface Tracked {
  readonly id: string;
  places: Place[];
  readonly contents: Set<string>;
  busy: boolean;
}

/** A small seeded generator (mulberry32), so a failing round can be replayed from its logged seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Marked noise, so no sniffer sees a signature in it by chance (see crash.test.ts). */
const content = (random: () => number) => Buffer.concat([Buffer.from('NOISE'), randomBytes(64 + Math.floor(random() * 120_000))]);

type Operation = 'upload' | 'replace' | 'restoreVersion' | 'delete' | 'deletePurge' | 'restoreFromTrash' | 'purgeFromTrash';
type Counts = Record<Operation, number> & { cut: number };

/**
 * Keeps `WORKERS` calls going against `service` and kills it once a random
 * number of them was acknowledged; the calls in flight are cut wherever they are.
 */
async function crashRound(
  t: ExecutionContext,
  service: ServiceProcess,
  auth: Metadata,
  assets: Map<string, Tracked>,
  random: () => number,
): Promise<Counts> {
  const counts: Counts = {
    upload: 0,
    replace: 0,
    restoreVersion: 0,
    delete: 0,
    deletePurge: 0,
    restoreFromTrash: 0,
    purgeFromTrash: 0,
    cut: 0,
  };
  let killed = false;
  let killing: Promise<void> | undefined;
  let killRequested!: (done: Promise<void>) => void;
  const killedNow = new Promise<void>((resolve) => (killRequested = resolve));
  const kill = () => {
    killed = true;
    killing ??= service.kill();
    killRequested(killing);
  };
  const failedBeforeKill: string[] = [];
  const target = Math.round(CALLS_PER_ROUND * (0.6 + random() * 0.8));
  let acknowledgedCalls = 0;
  const settle = async <T>(call: Promise<T>): Promise<T | undefined> => {
    try {
      return await call;
    } catch (error) {
      counts.cut++;
      if (!killed) failedBeforeKill.push(`${Status[(error as ServiceError).code]}: ${(error as ServiceError).details}`);
      return undefined;
    }
  };
  const acknowledged = (operation: Operation) => {
    counts[operation]++;
    if (++acknowledgedCalls >= target) kill();
  };

  /**
   * Runs `call` on `tracked`, which may move it to `next` (from its one known
   * place): while in flight both places are possible; acknowledged, only `next`.
   */
  const change = async <T>(tracked: Tracked, operation: Operation, next: Place, call: () => Promise<T>): Promise<T | undefined> => {
    tracked.busy = true;
    tracked.places = [...tracked.places, next];
    const answer = await settle(call());
    tracked.busy = false;
    if (answer === undefined) return undefined; // cut: either place
    tracked.places = [next];
    acknowledged(operation);
    return answer;
  };

  const upload = async () => {
    const bytes = content(random);
    const asset = await settle(service.clients.upload(auth, { label: 'crash', filename: 'crash.bin' }, bytes));
    if (!asset) return;
    t.is(asset.sha256, sha256(bytes), 'the upload was acknowledged with the sha256 of the bytes sent');
    assets.set(asset.id, {
      id: asset.id,
      places: [{ where: 'live', sha256: asset.sha256 }],
      contents: new Set([asset.sha256]),
      busy: false,
    });
    acknowledged('upload');
  };
  const replace = async (tracked: Tracked) => {
    const bytes = content(random);
    tracked.contents.add(sha256(bytes));
    const asset = await change(tracked, 'replace', { where: 'live', sha256: sha256(bytes) }, () =>
      service.clients.replace(auth, { id: tracked.id, filename: 'crash.bin' }, bytes),
    );
    if (asset) t.is(asset.sha256, sha256(bytes));
  };
  const restoreVersion = async (tracked: Tracked) => {
    tracked.busy = true;
    const listed = await settle(service.clients.asset('listAssetVersions', auth, { id: tracked.id }));
    tracked.busy = false;
    const version = listed?.versions[Math.floor(random() * listed.versions.length)];
    if (!version || killed) return;
    const asset = await change(tracked, 'restoreVersion', { where: 'live', sha256: version.sha256 }, () =>
      service.clients.asset('restoreAssetVersion', auth, { id: tracked.id, versionId: version.id }),
    );
    if (asset) t.is(asset.sha256, version.sha256, 'a restore makes the version’s bytes current');
  };
  const remove = async (tracked: Tracked, purge: boolean) => {
    const [place] = tracked.places as [Place & { where: 'live' }];
    await change(tracked, purge ? 'deletePurge' : 'delete', purge ? { where: 'gone' } : { where: 'trash', sha256: place.sha256 }, () =>
      service.clients.asset('deleteAsset', auth, { id: tracked.id, purge }),
    );
  };
  const restoreFromTrash = async (tracked: Tracked) => {
    const [place] = tracked.places as [Place & { where: 'trash' }];
    await change(tracked, 'restoreFromTrash', { where: 'live', sha256: place.sha256 }, () =>
      service.clients.asset('restoreAsset', auth, { id: tracked.id }),
    );
  };
  const purgeFromTrash = async (tracked: Tracked) => {
    await change(tracked, 'purgeFromTrash', { where: 'gone' }, () => service.clients.asset('purgeAsset', auth, { id: tracked.id }));
  };

  const worker = async () => {
    while (!killed) {
      // Only assets whose place is known are picked: a call's expected outcome follows from it.
      const idle = [...assets.values()].filter((tracked) => !tracked.busy && tracked.places.length === 1);
      const live = idle.filter((tracked) => tracked.places[0]!.where === 'live');
      const trashed = idle.filter((tracked) => tracked.places[0]!.where === 'trash');
      const pick = random();
      const any = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
      if (live.length < 4 || pick < 0.2) await upload();
      else if (pick < 0.45) await replace(any(live));
      else if (pick < 0.6) await restoreVersion(any(live));
      else if (pick < 0.72) await remove(any(live), false);
      else if (pick < 0.76) await remove(any(live), true);
      else if (trashed.length > 0 && pick < 0.88) await restoreFromTrash(any(trashed));
      else if (trashed.length > 0) await purgeFromTrash(any(trashed));
      else await upload();
    }
  };

  const work = Array.from({ length: WORKERS }, worker);
  // A backstop should the service stop answering (it would fail the round: calls failed before the kill).
  const timer = setTimeout(kill, 60_000);
  await killedNow;
  clearTimeout(timer);
  await Promise.all(work);
  t.deepEqual(failedBeforeKill, [], 'no call failed before the kill');
  return counts;
}

/**
 * After a restart: each asset is in one of the places its calls allow, and
 * serves that content; each of its versions is a content written to it and
 * reads back whole; the trash lists nothing the test did not delete.
 */
async function verifyAssets(t: ExecutionContext, service: ServiceProcess, auth: Metadata, assets: Map<string, Tracked>): Promise<void> {
  const trash = new Map<string, string>();
  let pageToken = '';
  do {
    const page = await service.clients.asset('listTrash', auth, { pageSize: 1000, pageToken });
    for (const entry of page.assets) trash.set(entry.asset!.id, entry.asset!.sha256);
    pageToken = page.nextPageToken;
  } while (pageToken);
  t.deepEqual(
    [...trash.keys()].filter((id) => !assets.has(id)),
    [],
    'the trash holds only assets the test made',
  );

  const verify = async (tracked: Tracked) => {
    const record = await service.clients.getAsset(auth, tracked.id).catch((error: ServiceError) => {
      if (error.code !== Status.NOT_FOUND) t.fail(`${tracked.id}: ${Status[error.code]} ${error.details}`);
      return undefined;
    });
    const trashed = trash.get(tracked.id);
    const place: Place = record
      ? { where: 'live', sha256: record.sha256 }
      : trashed !== undefined
        ? { where: 'trash', sha256: trashed }
        : { where: 'gone' };
    if (!tracked.places.some((allowed) => same(allowed, place))) {
      t.fail(`${tracked.id} is ${describe(place)}; its calls allow ${tracked.places.map(describe).join(' or ')}`);
      return;
    }
    tracked.places = [place];
    if (record) {
      const served = await service.clients.readFile({ path: record.url.slice(CDN_URL.length + 1) });
      t.is(sha256(served.bytes), record.sha256, `${tracked.id}: the bytes served are the record's`);
    }
    if (place.where === 'gone') return;
    // A trashed asset keeps its versions, but they are listed once it is restored; a live one lists them now.
    if (place.where === 'trash') return;
    const { versions } = await service.clients.asset('listAssetVersions', auth, { id: tracked.id });
    for (const version of versions) {
      t.true(tracked.contents.has(version.sha256), `${tracked.id}: version ${version.id} holds a content written to the asset`);
      const parts: Buffer[] = [];
      for await (const message of service.clients.assets.readAssetVersion(
        { id: tracked.id, versionId: version.id },
        auth,
      ) as AsyncIterable<{
        chunk?: Buffer;
      }>)
        if (message.chunk) parts.push(message.chunk);
      t.is(sha256(Buffer.concat(parts)), version.sha256, `${tracked.id}: version ${version.id} reads back whole`);
    }
  };
  const queue = [...assets.values()];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await verify(next);
    }),
  );
}

async function crashRounds(t: ExecutionContext, deployment: Deployment): Promise<void> {
  const started = performance.now();
  const auth = bearer(await mintToken(deployment.secret, { workspace: WORKSPACE }));
  const assets = new Map<string, Tracked>();
  const totals: Record<string, number> = {};
  let orphansCollected = 0;
  let service = await ServiceProcess.start(deployment);
  t.teardown(() => void service.child.process.kill('SIGKILL'));

  for (let round = 1; round <= ROUNDS; round++) {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const counts = await crashRound(t, service, auth, assets, seeded(seed));
    for (const [name, n] of Object.entries(counts)) totals[name] = (totals[name] ?? 0) + n;
    if (SOAK || round === ROUNDS) t.log(`${deployment.name} round ${round} (seed ${seed}): ${JSON.stringify(counts)}`);

    service = await ServiceProcess.start(deployment);
    await verifyAssets(t, service, auth, assets);
    const state = await audit(deployment);
    t.deepEqual(state.broken, [], `round ${round}: no record, version or trashed asset names a missing or different blob`);
    // What a kill cut short may leave unnamed blobs (a purge's bytes after its commit, a replace's before it):
    // gc, run beside the idle service as in production, takes exactly those.
    const gc = await runGc(deployment, '--grace', '0');
    t.is(gc.code, 0, gc.output);
    const after = await audit(deployment);
    t.deepEqual(after.broken, [], `round ${round}: gc removed nothing a record, version or trashed asset names`);
    t.deepEqual(after.blobKeys, after.referencedKeys, `round ${round}: after gc, exactly the named blobs remain`);
    t.deepEqual(after.strayFiles, [], `round ${round}: after gc, no temp file remains`);
    orphansCollected += state.blobKeys.length - after.blobKeys.length;
  }
  // And the service still answers for every asset as before gc ran.
  await verifyAssets(t, service, auth, assets);
  await service.stop();
  const where = (name: Place['where']) => [...assets.values()].filter((tracked) => tracked.places[0]!.where === name).length;
  t.log(
    `${deployment.name}: ${ROUNDS} rounds in ${((performance.now() - started) / 1000).toFixed(1)} s; acknowledged ${JSON.stringify(totals)}; ` +
      `${where('live')} assets live, ${where('trash')} in the trash, ${where('gone')} purged; gc collected ${orphansCollected} orphan blobs`,
  );
  t.true(totals['restoreVersion']! > 0 && totals['delete']! > 0, 'restores and deletes were acknowledged');
}

// Created before any test is declared: ava wants every test declared in the module's first turn.
const mysqlS3 = await mysqlS3Deployment();

test('SIGKILL during replaces, restores, deletes and purges, SQLite + disk: every asset where its calls allow, every version and trashed asset with its blob, no orphan after gc', async (t) => {
  t.timeout(scaled(300_000, 20 * 60_000));
  const deployment = await sqliteDiskDeployment();
  t.teardown(() => deployment.cleanup());
  await crashRounds(t, deployment);
});

if (!mysqlS3) {
  test.skip('SIGKILL during versions and trash on MySQL + S3: MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () =>
    undefined);
} else {
  test('SIGKILL during replaces, restores, deletes and purges, MySQL + S3: every asset where its calls allow, every version and trashed asset with its blob, no orphan after gc', async (t) => {
    t.timeout(scaled(300_000, 20 * 60_000));
    t.teardown(() => mysqlS3.cleanup());
    await crashRounds(t, mysqlS3);
  });
}
