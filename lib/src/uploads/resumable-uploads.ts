import { requireScope, type Principal } from '../auth/principal.js';
import { sleep, type TimeSource } from '../clock.js';
import { invalidArgument, SwitchyardError, toSwitchyardError } from '../errors.js';
import { assertId, type IdSource } from '../ids.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { UploadCommit, UploadRecord, UploadStore } from '../ports/upload-store.js';
import { assertBlobKey } from '../ports/blob-key.js';
import { assetNotFound } from '../assets/asset-errors.js';
import { tooLarge } from '../assets/byte-meter.js';
import { policyInForce } from '../assets/policy-operations.js';
import type { AssetService } from '../assets/types.js';
import { blobRuns, deleteParts, discardUpload, isRetryable, makeAsset } from './finish-upload.js';
import { validateIntent, validateLength } from './intent.js';
import { RunningDigests } from './running-digests.js';
import type { RunningHash } from '../assets/off-thread-hash.js';
import { ownsBlob, storePart, type PartTarget } from './store-part.js';
import type { CreateUploadInput, ResumableUploads, Upload } from './types.js';

export const DEFAULT_UPLOAD_EXPIRY_MS = 24 * 60 * 60 * 1000;
/** Most partial uploads one concatenation may join. */
export const MAX_CONCAT_PARTS = 1000;
/**
 * A finish claim not renewed for this long is presumed dead (its process
 * crashed), and another request may take the finish over: a crash mid-finish
 * leaves the upload busy (423) for about this long. A running finish renews
 * its claim six times as often (making the asset of a large upload takes a
 * while).
 */
export const DEFAULT_FINISH_CLAIM_MS = 60_000;
/** An append lease not renewed for this long is taken to be dead (its process crashed). */
const APPEND_LEASE_STALE_MS = 20_000;
/** How far apart the clocks of two instances may be for `mayHaveDisplaced` to judge right. */
const LEASE_CLOCK_MARGIN_MS = 5_000;
/** How often an append renews its lease while bytes flow. */
const APPEND_LEASE_RENEW_MS = 5_000;
/** How long an append waits for another one on the same upload to end (usually one cut short, committing what it got). */
const APPEND_LEASE_WAIT_MS = 3_000;
/** How long a termination waits for a finish (or a concatenation reading the upload's bytes) to end. */
const FINISH_WAIT_MS = 3_000;
/** Blob keys of upload parts start here: a workspace name cannot begin with `_`, so no asset key ever does. */
export const UPLOAD_PARTS_PREFIX = '_uploads';

export interface ResumableUploadDeps {
  readonly uploadStore: UploadStore;
  readonly assetStore: AssetStore;
  readonly blobStore: BlobStore;
  /** Finished uploads become assets through it. */
  readonly assets: AssetService;
  /** Lease, claim and expiry times, and every wait and deadline, are read from it. */
  readonly time: TimeSource;
  readonly ids: IdSource;
  readonly maxUploadBytes: number;
  /** How long an unfinished upload lives after its last append. */
  readonly expiryMs: number;
  /** How long a finish claim lives without renewal (DEFAULT_FINISH_CLAIM_MS). */
  readonly finishClaimMs?: number | undefined;
}

export function createResumableUploads(options: ResumableUploadDeps): ResumableUploads {
  const deps: ResumableUploadDeps = Object.freeze({ ...options });
  const { uploadStore, blobStore, time: timeSource } = deps;
  const now = (): Date => new Date(timeSource.now().getTime());
  const delay = (ms: number): Promise<void> => sleep(timeSource, ms);
  /** The time `ms` from now, in milliseconds: a deadline on the same clock the waits run on. */
  const deadlineIn = (ms: number): number => now().getTime() + ms;
  const isPast = (deadline: number): boolean => now().getTime() >= deadline;
  const expiresFrom = (time: Date): Date => new Date(time.getTime() + deps.expiryMs);
  const digests = new RunningDigests();
  const finishClaimMs = deps.finishClaimMs ?? DEFAULT_FINISH_CLAIM_MS;
  if (!Number.isSafeInteger(finishClaimMs) || finishClaimMs < 60)
    throw invalidArgument('finishClaimMs', 'must be a whole number of milliseconds, at least 60');
  const staleClaimsBefore = (time: Date): Date => new Date(time.getTime() - finishClaimMs);

  async function load(principal: Principal, id: string): Promise<UploadRecord> {
    requireScope(principal, 'assets:write');
    const uploadId = assertId('upload', id);
    const record = await uploadStore.get(principal.workspace, uploadId);
    // An expired upload is gone, whether or not gc has swept it yet.
    if (!record || (record.assetId === undefined && record.expiresAt <= now())) throw uploadNotFound(uploadId);
    return record;
  }

  /**
   * Takes the upload's append lease, waiting a little for another append to
   * end: when a connection drops, the client's retry often arrives while the
   * cut append is still committing the bytes it got, and would otherwise
   * stream its whole body only to lose the compare-and-set. Returns the
   * upload as read under the lease, and whether taking it may have displaced
   * a holder that never gave it back (see `mayHaveDisplaced`). `record` is the
   * upload as read at `readAt`.
   */
  async function acquireAppendLease(
    record: UploadRecord,
    readAt: Date,
    holder: string,
  ): Promise<{ current: UploadRecord; displaced: boolean }> {
    const deadline = deadlineIn(APPEND_LEASE_WAIT_MS);
    let seen = { record, at: readAt };
    for (;;) {
      const time = now();
      if (await uploadStore.acquireAppend(record.workspace, record.id, holder, time, new Date(time.getTime() - APPEND_LEASE_STALE_MS))) {
        const current = await uploadStore.get(record.workspace, record.id);
        if (current) return { current, displaced: mayHaveDisplaced(seen.record, seen.at, time) };
      }
      const readAgainAt = now();
      const latest = await uploadStore.get(record.workspace, record.id);
      if (!latest) throw uploadNotFound(record.id);
      if (latest.assetId !== undefined || latest.offset !== record.offset) throw offsetMismatch(latest.offset, record.offset);
      if (isPast(deadline)) {
        throw uploadBusy('another request is appending to this upload; try again shortly');
      }
      seen = { record: latest, at: readAgainAt };
      await delay(50);
    }
  }

  /**
   * Where an append's bytes go. With `writeAt`, into the blob the upload's
   * last bytes are in, after them, so that a complete upload is one blob its
   * finish can link rather than copy; a new blob for the first bytes, and
   * after a lease taken over from a holder that may still be writing into the
   * old one (past the committed bytes, which it never touches, but over ours).
   * Without `writeAt`, a blob of its own (`put`).
   */
  function partTarget(current: UploadRecord, holder: string, displaced: boolean): PartTarget {
    const key = assertBlobKey(`${UPLOAD_PARTS_PREFIX}/${current.workspace}/${current.id}/${holder}`);
    if (blobStore.writeAt === undefined) return { key };
    const last = blobRuns(current.parts).at(-1);
    return last === undefined || displaced ? { key, at: 0 } : { key: last.key, at: last.size };
  }

  /**
   * After taking over a lease its holder never gave back: records the new blob
   * (as an empty run) before any byte goes into it, so every later append
   * continues the new blob even if this one stores nothing. The old holder may
   * still be writing into the old blob past the committed bytes; an append that
   * went on there would share the file with it. No holder is named, so the
   * lease stays this append's.
   */
  async function moveToNewBlob(current: UploadRecord, offset: number, target: PartTarget): Promise<void> {
    const moved = await uploadStore.commit(current.workspace, current.id, offset, {
      part: { key: target.key, size: 0 },
      expiresAt: current.expiresAt,
    });
    if (moved) return;
    const latest = await uploadStore.get(current.workspace, current.id);
    if (!latest) throw uploadNotFound(current.id);
    throw offsetMismatch(latest.offset, offset);
  }

  /**
   * Commits a stored part. Bytes that did not become part of the upload (another request moved it on, or ended
   * it) are deleted if they are a blob of their own; when the commit failed without an answer (a lost connection
   * after the write) the record is read again first, since the part may be in it after all: a part deleted under
   * its record would lose the upload. A blob that held the upload's bytes before (`writeAt`) is never deleted
   * here: what this append wrote past them is cut by the next one.
   */
  async function commitPart(
    record: UploadRecord,
    offset: number,
    target: PartTarget,
    change: UploadCommit,
  ): Promise<UploadRecord | undefined> {
    const { part } = change;
    const ownBlob = ownsBlob(target);
    let committed: UploadRecord | undefined;
    try {
      committed = await uploadStore.commit(record.workspace, record.id, offset, change);
    } catch (error) {
      if (part && ownBlob) {
        const latest = await uploadStore.get(record.workspace, record.id).catch(() => undefined);
        // Unknown either way: keep the bytes, gc removes them once the upload is gone.
        if (latest !== undefined && !latest.parts.some((kept) => kept.key === part.key)) await deleteParts(blobStore, [part]);
      }
      throw toSwitchyardError(error);
    }
    if (part && ownBlob && !committed) await deleteParts(blobStore, [part]);
    return committed;
  }

  async function maxBytesOf(workspace: string): Promise<number> {
    return (await policyInForce(deps, workspace)).maxUploadBytes;
  }

  async function requireReplaceTarget(principal: Principal, assetId: string | undefined): Promise<void> {
    if (assetId !== undefined && !(await deps.assetStore.get(principal.workspace, assetId))) throw assetNotFound(assetId);
  }

  /** Makes the asset of a complete upload, once: concurrent callers leave it to the one holding the claim. */
  async function finish(principal: Principal, record: UploadRecord): Promise<UploadRecord> {
    const time = now();
    if (!(await uploadStore.claimFinish(record.workspace, record.id, time, staleClaimsBefore(time)))) {
      const current = await uploadStore.get(record.workspace, record.id);
      if (current?.assetId !== undefined) return current;
      throw uploadBusy('the upload is being turned into an asset by another request; ask again shortly');
    }
    const renewal = renewFinishClaim(record, time);
    let assetId: string;
    try {
      assetId = (await makeAsset(deps.assets, blobStore, principal, record, digests)).id;
    } catch (error) {
      renewal.stop();
      const failure = toSwitchyardError(error);
      if (isRetryable(failure)) {
        await uploadStore.releaseFinish(record.workspace, record.id).catch(() => undefined);
      } else {
        // Refused for good (policy, size, a replaced asset gone): nothing of it is kept.
        await discard(record);
      }
      throw failure;
    }
    // Kept a while after finishing, so a client that lost the answer can still learn the asset id. Recording it is
    // idempotent and tried a few times: an asset made but not recorded would be made again once the claim goes stale.
    try {
      await withRetries(() => uploadStore.finish(record.workspace, record.id, assetId, expiresFrom(now())), delay);
    } finally {
      renewal.stop();
    }
    digests.forget(record.id);
    await deleteParts(blobStore, record.parts);
    return { ...record, assetId, parts: [] };
  }

  /**
   * Keeps a finish claim taken at `claimedAt` fresh until stopped: one renewal
   * at a time, each moving the claim's time on (a failed one is tried again at
   * the next tick; a claim lost to a takeover stays lost).
   */
  function renewFinishClaim(record: UploadRecord, claimedAt: Date): { stop(): void } {
    let held = claimedAt;
    let renewing = false;
    const timer = timeSource.setInterval(() => {
      if (renewing) return;
      renewing = true;
      const time = now();
      uploadStore
        .renewFinish(record.workspace, record.id, held, time)
        .then((renewed) => {
          if (renewed) held = time;
        })
        .catch(() => undefined)
        .finally(() => (renewing = false));
    }, finishClaimMs / 6);
    timer.unref?.();
    return { stop: () => timeSource.clearInterval(timer) };
  }

  const discard = async (record: UploadRecord): Promise<void> => {
    digests.forget(record.id);
    await discardUpload(uploadStore, blobStore, record);
  };

  const isComplete = (record: UploadRecord): boolean =>
    record.length !== undefined && record.offset === record.length && record.assetId === undefined;

  async function createFinal(principal: Principal, input: CreateUploadInput, partialIds: readonly string[]): Promise<Upload> {
    if (!Array.isArray(partialIds) || partialIds.length === 0 || partialIds.length > MAX_CONCAT_PARTS) {
      throw invalidArgument('concat', `a final upload joins 1 to ${MAX_CONCAT_PARTS} partial uploads`);
    }
    if (input.length !== undefined)
      throw invalidArgument('length', 'a final upload has no length of its own: it is the sum of its partial uploads');
    const intent = validateIntent(input.intent);
    if (new Set(partialIds).size !== partialIds.length) throw invalidArgument('concat', 'a partial upload is named twice');
    const partials: UploadRecord[] = [];
    // Array.isArray above narrowed the (typed) list to any[] for callers from JavaScript; it holds strings.
    for (const partialId of partialIds as readonly string[]) {
      const partial = await load(principal, partialId);
      if (!partial.partial) throw invalidArgument('concat', `${partialId} is not a partial upload`);
      if (partial.length === undefined || partial.offset !== partial.length)
        throw invalidArgument('concat', `partial upload ${partialId} is not complete`);
      partials.push(partial);
    }
    const length = partials.reduce((sum, partial) => sum + partial.offset, 0);
    const maxBytes = await maxBytesOf(principal.workspace);
    if (length > maxBytes) throw tooLarge(maxBytes, 'length');
    await requireReplaceTarget(principal, intent.replace);
    // The partials' finish claims keep a concurrent final, or a termination, from removing bytes this one is reading.
    const releasePartials = await claimPartials(partials);
    const time = now();
    const record: UploadRecord = {
      id: deps.ids.next('upload'),
      workspace: principal.workspace,
      length,
      offset: length,
      parts: partials.flatMap((partial) => partial.parts),
      partial: false,
      intent,
      createdAt: time,
      expiresAt: expiresFrom(time),
      assetId: undefined,
    };
    try {
      await uploadStore.insert(record);
    } catch (error) {
      await releasePartials();
      throw error;
    }
    // The partials' bytes now belong to the final upload: their records go at once (we hold their claims), so
    // neither their expiry nor a termination can take bytes the final still needs, even if its finish must be retried.
    for (const partial of partials) digests.forget(partial.id);
    await Promise.all(partials.map((partial) => uploadStore.delete(partial.workspace, partial.id).catch(() => undefined)));
    return toUpload(await finishOrKeep(principal, record));
  }

  /**
   * Finishes an upload created complete (a final concatenation, an empty file). A failure for a passing reason
   * still answers the upload, so the client learns where it is and a later `get` takes the finish up again.
   */
  async function finishOrKeep(principal: Principal, record: UploadRecord): Promise<UploadRecord> {
    try {
      return await finish(principal, record);
    } catch (error) {
      if (isRetryable(toSwitchyardError(error))) return record;
      throw error;
    }
  }

  /**
   * Takes the finish claim of each partial upload for a final one (a partial
   * never finishes on its own, so its claim is free for this), or none: a
   * partial claimed by another final, or by a termination under way, is
   * `aborted`. Resolves with a function that releases the claims.
   */
  async function claimPartials(partials: readonly UploadRecord[]): Promise<() => Promise<void>> {
    const claimed: UploadRecord[] = [];
    const release = async (): Promise<void> => {
      await Promise.all(claimed.map((partial) => uploadStore.releaseFinish(partial.workspace, partial.id).catch(() => undefined)));
    };
    for (const partial of partials) {
      const time = now();
      if (await uploadStore.claimFinish(partial.workspace, partial.id, time, staleClaimsBefore(time))) {
        claimed.push(partial);
        continue;
      }
      await release();
      if (!(await uploadStore.get(partial.workspace, partial.id))) throw uploadNotFound(partial.id);
      throw new SwitchyardError('aborted', `partial upload ${partial.id} is being concatenated or terminated by another request`, [
        { field: 'concat', reason: `${partial.id} is in use` },
      ]);
    }
    return release;
  }

  return Object.freeze({
    async create(principal, input) {
      requireScope(principal, 'assets:write');
      if (typeof input !== 'object' || input === null) throw invalidArgument('upload', 'must be an object');
      const { concat } = input;
      if (concat !== undefined && concat !== 'partial') return createFinal(principal, input, concat.final);
      const intent = validateIntent(input.intent);
      const length = input.length === undefined ? undefined : validateLength(input.length);
      const maxBytes = await maxBytesOf(principal.workspace);
      if (length !== undefined && length > maxBytes) throw tooLarge(maxBytes, 'length');
      const partial = concat === 'partial';
      if (!partial) await requireReplaceTarget(principal, intent.replace);
      const time = now();
      const record: UploadRecord = {
        id: deps.ids.next('upload'),
        workspace: principal.workspace,
        length,
        offset: 0,
        parts: [],
        partial,
        intent,
        createdAt: time,
        expiresAt: expiresFrom(time),
        assetId: undefined,
      };
      await uploadStore.insert(record);
      // An empty file is complete from the start.
      return toUpload(length === 0 && !partial ? await finishOrKeep(principal, record) : record);
    },

    async append(principal, id, input) {
      const readAt = now();
      const record = await load(principal, id);
      if (typeof input !== 'object' || input === null) throw invalidArgument('append', 'must be an object');
      const offset = validateLength(input.offset, 'offset');
      if (offset !== record.offset) throw offsetMismatch(record.offset, offset);
      const declared = input.length === undefined ? undefined : validateLength(input.length);
      checkLength(record, declared);
      if (record.assetId !== undefined) return toUpload(record);
      if (isComplete(record)) return toUpload(record.partial ? record : await finish(principal, record));

      const maxBytes = await maxBytesOf(record.workspace);
      const holder = deps.ids.next('blob');
      const { current, displaced } = await acquireAppendLease(record, readAt, holder);
      const renewal = timeSource.setInterval(
        () => void uploadStore.renewAppend(record.workspace, record.id, holder, now()).catch(() => undefined),
        APPEND_LEASE_RENEW_MS,
      );
      renewal.unref?.();
      let committed: UploadRecord | undefined;
      let stored: { size: number; cut: SwitchyardError | undefined };
      let digest: RunningHash | undefined;
      try {
        // Judged again under the lease, on the upload as it is now: an append that held it may have moved the
        // offset on, or declared the length.
        if (current.offset !== offset) throw offsetMismatch(current.offset, offset);
        const length = checkLength(current, declared);
        if (length !== undefined && length > maxBytes) throw tooLarge(maxBytes, 'length');
        const target = partTarget(current, holder, displaced);
        if (displaced && target.at !== undefined) await moveToNewBlob(current, offset, target);
        const room =
          length === undefined
            ? { maxBytes: maxBytes - offset, tooLarge: () => tooLarge(maxBytes, 'length') }
            : { maxBytes: length - offset, tooLarge: () => pastLength(length) };
        digest = target.at === undefined ? undefined : digests.resume(record.id, target.key, target.at);
        stored = await storePart(blobStore, target, input.body, room, input.checksum, digest);
        const part = stored.size > 0 ? { key: target.key, size: stored.size } : undefined;
        // An empty run is no part: a blob made for it alone goes.
        if (!part && ownsBlob(target)) await blobStore.delete(target.key).catch(() => undefined);
        committed = await commitPart(record, offset, target, { part, length: declared, expiresAt: expiresFrom(now()), holder });
        if (committed && digest && part) {
          digests.keep(record.id, part.key, target.at! + part.size, digest);
          digest = undefined;
        }
        if (!committed) {
          const latest = await uploadStore.get(record.workspace, record.id);
          if (!latest) throw uploadNotFound(record.id);
          throw offsetMismatch(latest.offset, offset);
        }
      } finally {
        // A running hash not kept is given up in its worker.
        digest?.dispose();
        timeSource.clearInterval(renewal);
        if (!committed) await uploadStore.releaseAppend(record.workspace, record.id, holder).catch(() => undefined);
      }
      // A cut body's bytes are kept; the request itself still failed.
      if (stored.cut) throw stored.cut;
      return toUpload(isComplete(committed) && !committed.partial ? await finish(principal, committed) : committed);
    },

    async get(principal, id) {
      let record = await load(principal, id);
      // While an append is running (often one cut short, committing what it got), its offset is about to move:
      // answering the old one would send the client's retry into a conflict after it has sent its bytes.
      const deadline = deadlineIn(APPEND_LEASE_WAIT_MS);
      while (isLeased(record, now()) && !isPast(deadline)) {
        await delay(25);
        record = await load(principal, id);
      }
      if (!isComplete(record) || record.partial) return toUpload(record);
      // A finish that failed for a passing reason (the database was down) is taken up again. Until it is done the
      // upload answers "busy", never "complete": a client told all its bytes are in would stop without an asset.
      try {
        return toUpload(await finish(principal, record));
      } catch (error) {
        const failure = toSwitchyardError(error);
        throw isRetryable(failure)
          ? uploadBusy('the upload is complete and is being turned into an asset; ask again shortly', failure)
          : failure;
      }
    },

    async terminate(principal, id) {
      let record = await load(principal, id);
      // Holding the finish claim, nothing finishes the upload (or concatenates it into another) while its bytes are removed:
      // removing them under a running finish failed that finish for a missing part. A finished upload's record goes; its asset stays.
      const deadline = deadlineIn(FINISH_WAIT_MS);
      for (;;) {
        if (record.assetId !== undefined) break;
        const time = now();
        if (await uploadStore.claimFinish(record.workspace, record.id, time, staleClaimsBefore(time))) break;
        if (isPast(deadline)) {
          throw new SwitchyardError(
            'aborted',
            'the upload is being finished, or concatenated into another upload; ask for its state and try again',
            [{ field: 'id', reason: 'a finish is in progress' }],
          );
        }
        await delay(50);
        record = await load(principal, id);
      }
      digests.forget(record.id);
      if (await uploadStore.delete(record.workspace, record.id)) await deleteParts(blobStore, record.parts);
    },
  } satisfies ResumableUploads);
}

/** The upload's length after a request that may declare it: a declared one must agree with the upload's and cover its bytes. */
function checkLength(record: UploadRecord, declared: number | undefined): number | undefined {
  if (declared !== undefined && record.length !== undefined && declared !== record.length) {
    throw invalidArgument('length', `the upload's length is ${record.length} already and cannot change`);
  }
  const length = record.length ?? declared;
  if (length !== undefined && length < record.offset)
    throw invalidArgument('length', `must be at least the ${record.offset} bytes received`);
  return length;
}

/** Runs an idempotent store write, again on a failure, a few times, waiting longer before each. */
async function withRetries(write: () => Promise<void>, delay: (ms: number) => Promise<void>, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await delay(100 * attempt);
    }
  }
}

/**
 * Whether taking the append lease at `acquiredAt` may have displaced a holder
 * that never gave it back, and so may still be writing (hung, or cut off from
 * the database). A lease is taken from its holder only once not renewed for
 * APPEND_LEASE_STALE_MS; lease times only grow, and one taken after `seen` was
 * read is younger than `seenAt`. So when the lease seen last (or, seen free,
 * `seenAt`) is younger than that, with a margin for clocks apart, the holder
 * gave the lease back.
 */
function mayHaveDisplaced(seen: UploadRecord, seenAt: Date, acquiredAt: Date): boolean {
  const oldestLease = (seen.appendLeaseSince ?? seenAt).getTime();
  return oldestLease < acquiredAt.getTime() - APPEND_LEASE_STALE_MS + LEASE_CLOCK_MARGIN_MS;
}

function isLeased(record: UploadRecord, time: Date): boolean {
  return record.appendLeaseSince !== undefined && record.appendLeaseSince.getTime() >= time.getTime() - APPEND_LEASE_STALE_MS;
}

function toUpload(record: UploadRecord): Upload {
  const { intent } = record;
  return Object.freeze({
    id: record.id,
    offset: record.offset,
    length: record.length,
    partial: record.partial,
    filename: intent.filename,
    label: intent.label,
    visibility: intent.visibility,
    replace: intent.replace,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    assetId: record.assetId,
  });
}

export function uploadNotFound(id: string): SwitchyardError {
  return new SwitchyardError('not_found', `upload ${id} not found (it may have expired or been terminated)`, [
    { field: 'id', reason: 'no such upload' },
  ]);
}

/** Detail field of "the upload is busy, ask again shortly": transports with a status for it (tus: 423 Locked) recognise it by this. */
export const UPLOAD_BUSY_FIELD = 'upload';

function uploadBusy(message: string, cause?: unknown): SwitchyardError {
  return new SwitchyardError('unavailable', message, [{ field: UPLOAD_BUSY_FIELD, reason: 'busy; ask again shortly' }], {
    retryAfterMs: 1_000,
    cause,
  });
}

/** The client's idea of the offset is stale: it should ask for the current one and go on from there (HTTP 409). */
function offsetMismatch(actual: number, given: number): SwitchyardError {
  return new SwitchyardError('aborted', `the upload is at offset ${actual}, not ${given}; ask for its offset and continue from there`, [
    { field: 'offset', reason: `the upload is at ${actual}` },
  ]);
}

function pastLength(length: number): SwitchyardError {
  return new SwitchyardError(
    'resource_exhausted',
    `the bytes go past the upload's length of ${length}; none of this request's bytes were kept`,
    [{ field: 'body', reason: `past the declared length of ${length} bytes` }],
  );
}
