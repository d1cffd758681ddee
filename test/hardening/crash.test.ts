// Crash consistency: the service is killed with SIGKILL at random points of uploads,
// replaces and deletes (single and batch), on SQLite + disk and on MySQL + S3, and restarted
// on the same data. After each restart every acknowledged asset reads back with its sha256,
// every acknowledged delete stays deleted, no record points at a missing blob, a replace shows
// fully old or fully new content, the asset change log replayed from its start equals the
// asset rows (every committed write logged once, nothing logged that did not commit), and
// `npm run gc` removes what the crashes left (orphan blobs, temp files, unfinished multipart
// uploads).
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { type ClientWritableStream, type Metadata, type ServiceError, status as Status } from '@grpc/grpc-js';
import type { Asset } from '@switchyard/service/gen/switchyard/v1/assets.js';
import type { AssetRecord } from '@switchyard/core';
import { openStorage } from '@switchyard/service';
import { bearer, chunksOf, type GrpcClients } from '../grpc/support/clients.js';
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
/** Acknowledged writes a round makes, about, before its kill: some 200 over the three rounds of a normal run. */
const WRITES_PER_ROUND = 70;
/** Calls each round keeps going at once. */
const WORKERS = 4;
/** Big enough for S3 to go multipart (5 MiB parts), so a kill can strand uploaded parts. */
const BIG_BYTES = scaled(7, 12) * 1024 * 1024;
/** The size one upload in ten has: several gRPC messages, several disk writes. */
const MEDIUM_BYTES = scaled(512, 2048) * 1024;

type Kind = 'noise' | 'text' | 'png';
/** What the service sniffs each kind of content as. */
const TYPE_OF: Record<Kind, string> = { noise: 'application/octet-stream', text: 'text/plain', png: 'image/png' };
/** A 1×1 PNG: small, and a different type from the others, so a mixed-up record shows. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

interface Content {
  readonly bytes: Buffer;
  readonly sha256: string;
  readonly kind: Kind;
}

/**
 * Noise starts with a marker so no sniffer sees a signature in it by chance:
 * unmarked, about one random file in tens of thousands begins like MPEG-TS
 * (0x47 at bytes 0 and 188), a BMP, a gzip, ... and gets that type, which
 * this test would take for a torn replace. Text lines start with a word for
 * the same reason: a line starting with its random hex, `070707...`, is a
 * cpio signature to file-type (one CI run saw an asset typed
 * application/x-cpio whose sha256 was a text content's; three reruns did not).
 */
const NOISE_MARK = Buffer.from('NOISE');

function content(kind: Kind, size: number): Content {
  const bytes =
    kind === 'png'
      ? PNG
      : kind === 'text'
        ? Buffer.from(`line ${randomBytes(8).toString('hex')} of plain text\n`.repeat(Math.max(1, Math.ceil(size / 38))))
        : Buffer.concat([NOISE_MARK, randomBytes(Math.max(size, 64) - NOISE_MARK.length)]);
  return { bytes, sha256: sha256(bytes), kind };
}

function randomContent(random: () => number): Content {
  const pick = random();
  if (pick < 0.15) return content('png', 0);
  const size = random() < 0.1 ? MEDIUM_BYTES : 1 + Math.floor(random() * 300_000);
  return content(pick < 0.5 ? 'text' : 'noise', size);
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

/**
 * What the test knows of one asset: the contents its record may hold. One
 * after an acknowledged write; while a replace is unacknowledged (in flight
 * when the service died), its new content too, as it may have committed.
 */
interface Tracked {
  readonly id: string;
  candidates: Map<string, Content>;
  busy: boolean;
  /** A delete of it was sent but not acknowledged (in flight when the service died): it may be gone. */
  mayBeGone: boolean;
}

/** The workspace every call of this file works in. */
const WORKSPACE = 'crash';

/** Sends a whole upload or replace stream, calling `progress` with the bytes written so far. */
function send(
  clients: GrpcClients,
  metadata: Metadata,
  request: { kind: 'upload'; label: string } | { kind: 'replace'; id: string },
  body: Content,
  progress: (bytes: number) => void = () => undefined,
): Promise<Asset> {
  let stream!: ClientWritableStream<unknown>;
  const result = new Promise<Asset>((resolve, reject) => {
    const callback = (error: ServiceError | null, asset?: Asset) => (error ? reject(error) : resolve(asset!));
    stream = (
      request.kind === 'upload' ? clients.assets.uploadAsset(metadata, callback) : clients.assets.replaceAsset(metadata, callback)
    ) as ClientWritableStream<unknown>;
  });
  const head =
    request.kind === 'upload'
      ? { metadata: { label: request.label, filename: '', declaredType: '', visibility: '' } }
      : { metadata: { id: request.id, filename: '', declaredType: '', visibility: '' } };
  void (async () => {
    const messages = [head, ...[...chunksOf(body.bytes)].map((chunk) => ({ chunk }))];
    let written = 0;
    for (const message of messages) {
      if (stream.destroyed || stream.writableEnded) return;
      if (!stream.write(message)) await new Promise<void>((resolve) => stream.once('drain', resolve).once('close', resolve));
      if ('chunk' in message) progress((written += message.chunk.length));
    }
    if (!stream.destroyed) stream.end();
  })();
  return result;
}

interface RoundOutcome {
  uploadsAcknowledged: number;
  replacesAcknowledged: number;
  deletesAcknowledged: number;
  unacknowledged: number;
}

/**
 * Keeps `WORKERS` uploads, replaces and deletes going against `service` and
 * kills it once a random number of them was acknowledged (the others are cut
 * wherever they are), or, in mid-stream rounds, after that once a big upload
 * is partly sent.
 */
async function crashRound(
  t: ExecutionContext,
  service: ServiceProcess,
  auth: Metadata,
  assets: Map<string, Tracked>,
  deleted: Set<string>,
  random: () => number,
  midStream: boolean,
): Promise<RoundOutcome> {
  const outcome: RoundOutcome = { uploadsAcknowledged: 0, replacesAcknowledged: 0, deletesAcknowledged: 0, unacknowledged: 0 };
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
  const target = Math.round(WRITES_PER_ROUND * (0.6 + random() * 0.8));
  let targetReached!: () => void;
  const reachedTarget = new Promise<void>((resolve) => (targetReached = resolve));
  const acknowledged = () => {
    if (outcome.uploadsAcknowledged + outcome.replacesAcknowledged + outcome.deletesAcknowledged >= target) targetReached();
  };
  const settle = async <T>(call: Promise<T>): Promise<T | undefined> => {
    try {
      return await call;
    } catch (error) {
      outcome.unacknowledged++;
      if (!killed) failedBeforeKill.push(`${Status[(error as ServiceError).code]}: ${(error as ServiceError).details}`);
      return undefined;
    }
  };

  const upload = async (body: Content, progress?: (bytes: number) => void) => {
    const asset = await settle(send(service.clients, auth, { kind: 'upload', label: `crash-${body.kind}` }, body, progress));
    if (!asset) return;
    // An acknowledgement is a promise: from here on this asset must survive any crash.
    t.is(asset.sha256, body.sha256, 'the upload was acknowledged with the sha256 of the bytes sent');
    assets.set(asset.id, { id: asset.id, candidates: new Map([[body.sha256, body]]), busy: false, mayBeGone: false });
    outcome.uploadsAcknowledged++;
    acknowledged();
  };
  const replace = async (tracked: Tracked, body: Content, progress?: (bytes: number) => void) => {
    tracked.busy = true;
    tracked.candidates.set(body.sha256, body);
    const asset = await settle(send(service.clients, auth, { kind: 'replace', id: tracked.id }, body, progress));
    tracked.busy = false;
    if (!asset) return; // unknown outcome: old or new, both stay candidates
    t.is(asset.sha256, body.sha256);
    tracked.candidates = new Map([[body.sha256, body]]);
    outcome.replacesAcknowledged++;
    acknowledged();
  };

  /** Deletes one asset, or a batch of them in one call: one revision either way. */
  const remove = async (targets: Tracked[]) => {
    for (const tracked of targets) tracked.busy = tracked.mayBeGone = true;
    const ids = targets.map((tracked) => tracked.id);
    const call =
      ids.length === 1
        ? service.clients.asset('deleteAsset', auth, { id: ids[0]!, purge: false })
        : service.clients.asset('batchDeleteAssets', auth, { ids });
    const answered = await settle(call.then(() => true));
    for (const tracked of targets) tracked.busy = false;
    if (!answered) return; // unknown outcome: each may be there or gone
    for (const id of ids) {
      assets.delete(id);
      deleted.add(id);
    }
    outcome.deletesAcknowledged += ids.length;
    acknowledged();
  };

  const worker = async () => {
    while (!killed) {
      const idle = [...assets.values()].filter((tracked) => !tracked.busy);
      const pick = random();
      if (idle.length > 3 && pick < 0.12) await remove(idle.sort(() => random() - 0.5).slice(0, 1 + Math.floor(random() * 3)));
      else if (idle.length > 0 && pick < 0.5) await replace(idle[Math.floor(random() * idle.length)]!, randomContent(random));
      else await upload(randomContent(random));
    }
  };

  const work = Array.from({ length: WORKERS }, worker);
  // A backstop should the service stop answering (it would fail the round: calls failed before the kill).
  const timer = setTimeout(kill, 60_000);
  await Promise.race([reachedTarget, killedNow]);
  if (!midStream) kill();
  else if (!killed) {
    // Kill once a big upload (and, if there is one to replace, a big replace) is about half sent.
    const cutAt = Math.floor(BIG_BYTES * (0.2 + random() * 0.75));
    const cutWhen = (bytes: number) => void (bytes >= cutAt && !killed && kill());
    work.push(upload(content('noise', BIG_BYTES), cutWhen));
    const idle = [...assets.values()].find((tracked) => !tracked.busy);
    if (idle) work.push(replace(idle, content('noise', BIG_BYTES)));
  }
  await killedNow;
  clearTimeout(timer);
  await Promise.all(work);
  t.deepEqual(failedBeforeKill, [], 'no call failed before the kill');
  return outcome;
}

/** After a restart: every tracked asset holds exactly one of its candidate contents, and serves exactly those bytes; every deleted one is gone. */
async function verifyAssets(
  t: ExecutionContext,
  service: ServiceProcess,
  auth: Metadata,
  assets: Map<string, Tracked>,
  deleted: ReadonlySet<string>,
): Promise<void> {
  const verify = async (tracked: Tracked) => {
    const record = await service.clients.getAsset(auth, tracked.id).catch((error: ServiceError) => {
      if (tracked.mayBeGone && error.code === Status.NOT_FOUND)
        assets.delete(tracked.id); // its delete committed
      else t.fail(`acknowledged asset ${tracked.id} is gone after the crash: ${Status[error.code]} ${error.details}`);
      return undefined;
    });
    if (!record) return;
    tracked.mayBeGone = false;
    const expected = tracked.candidates.get(record.sha256);
    if (!expected) {
      t.fail(`${tracked.id} holds ${record.sha256}, which is none of the contents written to it`);
      return;
    }
    t.is(record.size, expected.bytes.length, `${tracked.id}: the size is that of the same content as the sha256`);
    t.true(
      record.type.startsWith(TYPE_OF[expected.kind]),
      `${tracked.id}: type ${record.type} belongs to the same content as the sha256 (${expected.kind})`,
    );
    const served = await service.clients.readFile({ path: record.url.slice(CDN_URL.length + 1) });
    t.is(sha256(served.bytes), record.sha256, `${tracked.id}: the bytes served are the record's, wholly old or wholly new`);
    tracked.candidates = new Map([[record.sha256, expected]]);
  };
  const verifyGone = async (id: string) => {
    const error = await t.throwsAsync<ServiceError>(service.clients.getAsset(auth, id), undefined, `${id} was deleted`);
    t.is(error && Status[error.code], 'NOT_FOUND', `${id}: an acknowledged delete holds`);
  };
  // A few at a time: quick, without turning the check into a load test.
  const queue: (() => Promise<void>)[] = [
    ...[...assets.values()].map((tracked) => () => verify(tracked)),
    ...[...deleted].map((id) => () => verifyGone(id)),
  ];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await next();
    }),
  );
}

/** What of a record a change must have logged exactly (media facts a later pass fills in are left out). */
function loggedFields(record: AssetRecord) {
  const { id, label, name, sha256, size, type, version, visibility, linkEpoch } = record;
  return { id, label, name, sha256, size, type, version, visibility, linkEpoch };
}

/**
 * The change log, replayed from its first revision, ends where the asset rows are: revisions
 * 1..current each present once and in order, every change consistent with the one before it
 * (created only when absent, the rest only when present), and the replayed records equal to the
 * rows, field by field. A write that did not commit but was logged, or one that committed
 * unlogged, shows as a difference.
 */
async function verifyChangeLog(t: ExecutionContext, deployment: Deployment, round: number): Promise<number> {
  const storage = await openStorage(deployment.storage, { migrate: false });
  try {
    const revision = await storage.assetStore.revision(WORKSPACE);
    const changes = (await storage.assetStore.changesSince(WORKSPACE, 0, 1_000_000)) ?? [];
    const revisions = [...new Set(changes.map((change) => change.revision))];
    t.deepEqual(
      revisions,
      Array.from({ length: revision }, (_, i) => i + 1),
      `round ${round}: revisions 1..${revision}, none missing or repeated`,
    );
    const replayed = new Map<string, ReturnType<typeof loggedFields>>();
    const inconsistent: string[] = [];
    for (const change of changes) {
      const present = replayed.has(change.assetId);
      if (change.type === 'asset.created' ? present : !present) inconsistent.push(`${change.revision} ${change.type} ${change.assetId}`);
      if (change.type === 'asset.deleted') replayed.delete(change.assetId);
      else replayed.set(change.assetId, loggedFields(change.asset));
    }
    t.deepEqual(inconsistent, [], `round ${round}: every change follows from the one before it`);
    const ids = await storage.db.selectFrom('assets').select('id').where('workspace', '=', WORKSPACE).execute();
    const rows = new Map<string, ReturnType<typeof loggedFields>>();
    for (const { id } of ids) {
      const record = await storage.assetStore.get(WORKSPACE, id);
      if (record) rows.set(id, loggedFields(record));
    }
    const sorted = (map: Map<string, unknown>) => [...map].sort(([a], [b]) => a.localeCompare(b));
    t.deepEqual(sorted(replayed), sorted(rows), `round ${round}: the log replayed equals the asset rows`);
    return changes.length;
  } finally {
    await storage.close();
  }
}

async function crashRounds(t: ExecutionContext, deployment: Deployment): Promise<void> {
  const started = performance.now();
  const auth = bearer(await mintToken(deployment.secret, { workspace: WORKSPACE }));
  const assets = new Map<string, Tracked>();
  const deleted = new Set<string>();
  const totals = { uploads: 0, replaces: 0, deletes: 0, unacknowledged: 0 };
  let logged = 0;
  let service = await ServiceProcess.start(deployment);
  t.teardown(() => void service.child.process.kill('SIGKILL'));

  for (let round = 1; round <= ROUNDS; round++) {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const midStream = round % 2 === 0;
    const outcome = await crashRound(t, service, auth, assets, deleted, seeded(seed), midStream);
    totals.uploads += outcome.uploadsAcknowledged;
    totals.replaces += outcome.replacesAcknowledged;
    totals.deletes += outcome.deletesAcknowledged;
    totals.unacknowledged += outcome.unacknowledged;
    if (SOAK || round === ROUNDS)
      t.log(`${deployment.name} round ${round} (seed ${seed}, ${midStream ? 'mid-stream' : 'between calls'}): ${JSON.stringify(outcome)}`);

    logged = await verifyChangeLog(t, deployment, round);
    service = await ServiceProcess.start(deployment);
    await verifyAssets(t, service, auth, assets, deleted);
    const state = await audit(deployment);
    t.deepEqual(state.broken, [], `round ${round}: no record points at a missing or different blob`);
    t.true(state.assetRows >= assets.size, 'every acknowledged upload has its record');
  }

  // What the crashes left: blobs no record points at, temp files, unfinished multipart uploads.
  // The service is up and idle, as in production, where gc runs beside it.
  const before = await audit(deployment);
  const gc = await runGc(deployment, '--grace', '0');
  t.is(gc.code, 0, gc.output);
  const after = await audit(deployment);
  t.deepEqual(after.broken, [], 'gc removed nothing a record needs');
  t.deepEqual(after.blobKeys, after.referencedKeys, 'after gc, exactly the referenced blobs remain');
  t.deepEqual(after.strayFiles, [], 'after gc, no temp file remains');
  if (deployment.s3) {
    // s3rver has no ListMultipartUploads, so gc cannot see the parts a crash stranded there; it must say so
    // (on S3 itself it aborts them). Those parts are outside every key: no record or listing can reach them.
    t.regex(gc.output, /warning: the S3 server cannot list unfinished multipart uploads/);
  }
  // And the service still serves every acknowledged asset.
  await verifyAssets(t, service, auth, assets, deleted);
  await service.stop();
  t.log(
    `${deployment.name}: ${ROUNDS} rounds in ${((performance.now() - started) / 1000).toFixed(1)} s; acknowledged ${totals.uploads} uploads, ${totals.replaces} replaces and ${totals.deletes} deletes ` +
      `(${logged} changes logged), ` +
      `${totals.unacknowledged} calls cut by the kills; ${assets.size} assets tracked; gc removed ${before.blobKeys.length - after.blobKeys.length} orphan blobs, ` +
      `${before.strayFiles.length} temp files; ${after.pendingMultipart.length} unfinished multipart uploads left in s3rver`,
  );
}

// Created before any test is declared: ava wants every test declared in the module's first turn.
const mysqlS3 = await mysqlS3Deployment();

test('SIGKILL during uploads, replaces and deletes, SQLite + disk: nothing acknowledged is lost, nothing half-replaced, the change log equals the rows, gc cleans up', async (t) => {
  t.timeout(scaled(300_000, 20 * 60_000));
  const deployment = await sqliteDiskDeployment();
  t.teardown(() => deployment.cleanup());
  await crashRounds(t, deployment);
});

if (!mysqlS3) {
  test.skip('SIGKILL on MySQL + S3: MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () => undefined);
} else {
  test('SIGKILL during uploads, replaces and deletes, MySQL + S3: nothing acknowledged is lost, nothing half-replaced, the change log equals the rows, gc cleans up', async (t) => {
    t.timeout(scaled(300_000, 20 * 60_000));
    t.teardown(() => mysqlS3.cleanup());
    await crashRounds(t, mysqlS3);
  });
}
