// `switchyard backfill-metadata` through the CLI's main, in process: assets stored before
// their media facts were read (records of version 0, as migration 0007 leaves
// them) get them; a second run finds nothing left.
import test from 'ava';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { sampleAsset, sampleContent } from '@switchyard/core/testing';
import { openStorage, type StorageConfig } from '@switchyard/service';
import { runCli, type CliRun } from '../support/cli.js';

const FIXTURES = new URL('../fixtures/media/', import.meta.url);

function backfill(dataDir: string, ...args: string[]): Promise<CliRun> {
  return runCli(['backfill-metadata', ...args], {
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    BLOB_STORE: '',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
}

test('old assets get their facts; --dry-run writes nothing; a second run has nothing left', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-backfill-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const config: StorageConfig = {
    database: { kind: 'sqlite', file: join(dir, 'switchyard.sqlite') },
    blobs: { kind: 'disk', root: join(dir, 'files') },
  };
  const storage = await openStorage(config);
  const stored = async (file: string, type: string) => {
    const bytes = await readFile(new URL(file, FIXTURES));
    const content = sampleContent('ws', { type, size: bytes.length, width: undefined, height: undefined });
    const record = sampleAsset('ws', { ...content });
    await storage.blobStore.put(record.blobKey, Readable.from([bytes], { objectMode: false }));
    await storage.assetStore.insert(record, { actor: 'test', time: new Date() });
    return record;
  };
  const video = await stored('video.webm', 'video/webm');
  const pdf = await stored('three-pages.pdf', 'application/pdf');
  const photo = await stored('gps.jpg', 'image/jpeg');
  await storage.close();

  const dry = await backfill(dir, '--dry-run', '--quiet');
  t.is(dry.code, 0, dry.stderr);
  t.is(dry.stdout, 'would describe 3 assets; 0 changed meanwhile, 0 left for a later run\n');
  const run = await backfill(dir);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, new RegExp(`^ws/${video.id} video/webm \\{"width":320,"height":240,"durationMs":2\\d\\d\\d\\}$`, 'm'));
  t.regex(run.stdout, new RegExp(`^ws/${pdf.id} application/pdf \\{"pages":3\\}$`, 'm'));
  t.regex(run.stdout, new RegExp(`^ws/${photo.id} image/jpeg \\{"width":40,"height":60,"placeholder":"[A-Za-z0-9+/=]+"\\}$`, 'm'));
  t.regex(run.stdout, /described 3 assets; 0 changed meanwhile, 0 left for a later run\n$/);
  t.is((await backfill(dir)).stdout, 'described 0 assets; 0 changed meanwhile, 0 left for a later run\n', 'nothing left');

  const after = await openStorage(config);
  t.teardown(() => after.close());
  t.like(await after.assetStore.get('ws', pdf.id), { pages: 3 });
  t.like(await after.assetStore.get('ws', video.id), { width: 320, height: 240 });
});

test('a bad --limit is a usage error', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-backfill-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const run = await backfill(dir, '--limit', 'x');
  t.not(run.code, 0);
  t.regex(run.stderr, /--limit/);
});
