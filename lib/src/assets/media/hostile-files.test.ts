// Hostile files: each parser on truncated, looping and lying files ends
// within its bound of bytes (and, at the latest, at its deadline, which
// probe-pool.test.ts checks on fake time), the upload succeeds without the
// field, and memory stays flat over many of them.
import test from 'ava';
import { readFile } from 'node:fs/promises';
import { alice, chunked, memoryAfterGc, patientLoading, setup } from '../test-support.js';
import type { DescribeObserver } from './describe-media.js';
import { MEDIA_FACTS_VERSION } from './media-facts.js';
import type { ProbeCost, ProbeOutcome } from './probe-pool.js';
import { systemTime, type TimeSource } from '../../clock.js';

const media = (name: string) => readFile(new URL(`../../../../test/fixtures/media/${name}`, import.meta.url));

/** Small bounds, so that reaching them is what the test sees. */
const LIMITS = { maxBytes: 256 * 1024, timeoutMs: 2_000 };

interface Seen {
  readonly kind: string;
  readonly outcome: ProbeOutcome;
  readonly cost: ProbeCost;
}

function observed(): { seen: Seen[]; observer: DescribeObserver } {
  const seen: Seen[] = [];
  return { seen, observer: (kind, outcome, cost) => void seen.push({ kind, outcome, cost }) };
}

/** The hostile files, made from the fixtures. */
async function hostileFiles(): Promise<Record<string, Buffer>> {
  const mp4 = await media('video.mp4');
  const pdf = (await media('three-pages.pdf')).toString('latin1');
  const wav = Buffer.from(await media('sound.wav'));
  // An MP4 cut before its index (moov is at the end), as an interrupted upload from a camera leaves it.
  const truncatedMp4 = mp4.subarray(0, Math.floor(mp4.length * 0.6));
  // An MP4 whose media data box claims 4 GiB: the index "after" it is far past the end.
  const lyingMp4 = Buffer.from(mp4);
  lyingMp4.writeUInt32BE(0xffff_fff0, lyingMp4.indexOf('mdat') - 4);
  // A PDF whose cross-reference section names itself as the previous one: a loop.
  const xref = /startxref\n(\d+)/.exec(pdf)![1]!;
  const loopingPdf = Buffer.from(pdf.replace('/Root 1 0 R >>', `/Root 1 0 R /Prev ${xref} >>`), 'latin1');
  // A PDF whose startxref points at itself, and whose objects are padded past the byte bound.
  const selfPdf = Buffer.from(
    pdf.replace(/startxref\n\d+/, `startxref\n${pdf.indexOf('startxref')}`).replace('%PDF-1.4\n', `%PDF-1.4\n%${'x'.repeat(600 * 1024)}\n`),
    'latin1',
  );
  // A WAV whose RIFF and data chunks claim 4 GiB of samples: 12 hours at 8 kHz, in 24 KB.
  const lyingWav = Buffer.from(wav);
  lyingWav.writeUInt32LE(0xffff_fff0, 4);
  lyingWav.writeUInt32LE(0xffff_fff0, lyingWav.indexOf('data') + 4);
  return { truncatedMp4, lyingMp4, loopingPdf, selfPdf, lyingWav };
}

test('truncated, looping and lying files: stored, without the field, each parse within its bounds', async (t) => {
  const { seen, observer } = observed();
  const { service, assetStore } = setup({ mediaFacts: LIMITS, observer });
  const files = await hostileFiles();
  for (const [name, bytes] of Object.entries(files)) {
    const asset = await service.upload(alice, { body: chunked(bytes) });
    const { outcome, cost } = seen.at(-1)!;
    t.log(
      `${name}: ${bytes.length} bytes, ${outcome.kind}${'reason' in outcome ? ` (${outcome.reason})` : ''}, read ${cost.bytesRead} bytes past the head in ${cost.ms.toFixed(1)} ms; facts ${JSON.stringify({ width: asset.width, durationMs: asset.durationMs, pages: asset.pages })}`,
    );
    t.true(cost.bytesRead <= LIMITS.maxBytes, `${name}: bytes within the bound`);
    t.is((await assetStore.get('ws-alice', asset.id))?.factsVersion, MEDIA_FACTS_VERSION, `${name}: looked at, so no backfill`);
    if (name === 'truncatedMp4' || name === 'lyingMp4') t.like(asset, { type: 'video/mp4', width: undefined, durationMs: undefined });
    if (name === 'lyingWav')
      t.true(asset.durationMs === undefined || Math.abs(asset.durationMs - 1500) < 10, 'the samples there are, not the ones claimed');
    if (name === 'selfPdf') t.is(asset.pages, undefined, 'past the byte bound: no page count');
  }
});

/** The parse deadline of the next test: an odd number, so no other timer of the pool has it. */
const PARSE_DEADLINE_MS = 4_321;

/**
 * patientLoading, except that the parse deadline passes as soon as it is set (in a microtask,
 * before the worker's answer can be read): the parser is past it on every run, however fast it is.
 */
const parseDeadlinePassed: TimeSource = {
  ...patientLoading,
  setTimeout: (callback, ms) => {
    if (ms !== PARSE_DEADLINE_MS) return patientLoading.setTimeout(callback, ms);
    queueMicrotask(callback);
    return systemTime.setTimeout(() => undefined, 0);
  },
};

test('a parser past its deadline is ended with its worker; the upload succeeds without the field, and the next file is described', async (t) => {
  const { seen, observer } = observed();
  const { service } = setup({ mediaFacts: { timeoutMs: PARSE_DEADLINE_MS }, observer, mediaTime: parseDeadlinePassed });
  const pdf = await service.upload(alice, { body: chunked(await media('three-pages.pdf')) });
  t.is(pdf.pages, undefined);
  t.like(seen.at(-1)?.outcome, { kind: 'timeout', reason: `no answer within ${PARSE_DEADLINE_MS} ms` });
  const slow = setup({ mediaFacts: { timeoutMs: 10_000 } });
  t.is((await slow.service.upload(alice, { body: chunked(await media('three-pages.pdf')) })).pages, 3);
});

test('a file read past the byte bound gets no field: ADTS AAC has no index, so it is read through', async (t) => {
  const { seen, observer } = observed();
  const aac = await media('sound.aac');
  const long = Buffer.concat(Array.from({ length: 40 }, () => aac));
  const { service } = setup({ mediaFacts: { maxBytes: 64 * 1024 }, observer });
  const asset = await service.upload(alice, { body: chunked(long) });
  t.like(asset, { type: 'audio/aac', durationMs: undefined });
  t.true(seen.at(-1)!.cost.bytesRead <= 64 * 1024);
  const roomy = setup();
  t.true(
    Math.abs((await roomy.service.upload(alice, { body: chunked(long) })).durationMs! - 60_000) < 1_500,
    'within the default bound: timed',
  );
});

test('every parser busy: the file is stored without facts and left for backfill-metadata (version 0)', async (t) => {
  const { service, assetStore } = setup({ mediaFacts: { workers: 1, queue: 0 } });
  const bytes = await media('video.webm');
  const assets = await Promise.all(Array.from({ length: 4 }, () => service.upload(alice, { body: chunked(bytes) })));
  const versions = await Promise.all(assets.map(async (asset) => (await assetStore.get('ws-alice', asset.id))?.factsVersion ?? 0));
  t.true(versions.includes(MEDIA_FACTS_VERSION), 'one described');
  t.true(versions.includes(0), 'the others left');
  t.true(assets.every((asset) => asset.type === 'video/webm'));
});

test.serial('memory stays flat over hundreds of hostile files', async (t) => {
  const { service } = setup({ mediaFacts: LIMITS });
  const files = Object.values(await hostileFiles());
  const round = async () => {
    for (const bytes of files) await service.upload(alice, { body: chunked(bytes) });
  };
  for (let i = 0; i < 5; i++) await round();
  // After full collections (what is retained, not garbage a loaded machine has not collected yet), and
  // net of the files themselves, which this test's in-memory blob store keeps: 30 MiB of the growth.
  const before = memoryAfterGc();
  const rounds = 40;
  for (let i = 0; i < rounds; i++) await round();
  const after = memoryAfterGc();
  const stored = rounds * files.reduce((bytes, file) => bytes + file.length, 0);
  const mib = (bytes: number) => bytes / 1024 / 1024;
  const retained = mib(after.live - before.live - stored);
  const rssGrowth = mib(after.rss - before.rss - stored);
  t.log(
    `over ${rounds * files.length} hostile uploads, beyond the ${mib(stored).toFixed(1)} MiB stored: ${retained.toFixed(1)} MiB retained, RSS ${rssGrowth.toFixed(1)} MiB`,
  );
  t.true(retained < 8, `${retained.toFixed(1)} MiB retained beyond the stored files`);
  t.true(rssGrowth < 64, `RSS grew ${rssGrowth.toFixed(1)} MiB beyond the stored files`);
});
