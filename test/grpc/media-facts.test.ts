// Media facts, poster frames and metadata stripping over gRPC (the service's
// generated grpc-js clients, SQLite + disk): the optional Asset fields of
// every media fixture, ReadFile with transform.frame, UNIMPLEMENTED without
// ffmpeg, and SetWorkspacePolicy's strip_image_metadata.
import test from 'ava';
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { filePath } from './service-suite.js';
import { sqliteDiskTarget } from './support/storage-targets.js';
import { startTestService, type TestService } from './support/test-service.js';

const media = (name: string) => readFile(new URL(`../fixtures/media/${name}`, import.meta.url));
const FFMPEG = process.env['FFMPEG_PATH'] || '/usr/bin/ffmpeg';

let svc: TestService;
test.before(async () => {
  const target = await sqliteDiskTarget();
  svc = await startTestService({ storage: target.storage, dataDir: target.dataDir, env: { FFMPEG_PATH: FFMPEG } });
});
test.after.always(async () => svc?.stop());

test("UploadAsset answers each media fixture's facts, and GetAsset keeps them", async (t) => {
  const auth = await svc.auth('grpc-facts');
  const cases: [string, Record<string, unknown>][] = [
    ['video.mp4', { type: 'video/mp4', width: 320, height: 240, pages: undefined, placeholder: undefined }],
    ['video.webm', { type: 'video/webm', width: 320, height: 240 }],
    ['video-rotated.mp4', { width: 240, height: 320 }],
    ['sound.flac', { type: 'audio/flac', durationMs: 1500, width: undefined }],
    ['sound.wav', { durationMs: 1500 }],
    ['three-pages.pdf', { type: 'application/pdf', pages: 3, durationMs: undefined }],
    ['gps.png', { width: 40, height: 60 }],
  ];
  for (const [name, expected] of cases) {
    const asset = await svc.clients.upload(auth, { filename: name }, await media(name));
    t.like(asset, expected, name);
    t.like(await svc.clients.getAsset(auth, asset.id), expected, `${name}: GetAsset`);
    if (name.startsWith('video.')) t.true(Math.abs(asset.durationMs! - 2000) <= 60, `${asset.durationMs}`);
    if (name === 'gps.png') t.regex(asset.placeholder ?? '', /^[A-Za-z0-9+/]{20,40}={0,2}$/);
  }
});

test('ReadFile with transform.frame streams a JPEG poster; frame past the end is INVALID_ARGUMENT', async (t) => {
  const auth = await svc.auth('grpc-frames');
  const video = await svc.clients.upload(auth, { filename: 'v.mp4' }, await media('video.mp4'));
  const poster = await svc.clients.readFile({ path: filePath(video), transform: { frame: 1000, w: 128 } });
  t.is(poster.info.type, 'image/jpeg');
  t.like(await sharp(poster.bytes).metadata(), { format: 'jpeg', width: 128, height: 96 });
  const error = await t.throwsAsync<ServiceError>(svc.clients.readFile({ path: filePath(video), transform: { frame: 60_000 } }));
  t.is(error.code, Status.INVALID_ARGUMENT);
});

test('without ffmpeg, ReadFile with transform.frame is UNIMPLEMENTED naming ffmpeg', async (t) => {
  const target = await sqliteDiskTarget();
  const bare = await startTestService({ storage: target.storage, dataDir: target.dataDir, env: { FFMPEG_PATH: '/nonexistent/ffmpeg' } });
  t.teardown(() => bare.stop());
  const video = await bare.clients.upload(await bare.auth('grpc-no-ffmpeg'), { filename: 'v.mp4' }, await media('video.mp4'));
  const error = await t.throwsAsync<ServiceError>(bare.clients.readFile({ path: filePath(video), transform: { frame: 0 } }));
  t.is(error.code, Status.UNIMPLEMENTED);
  t.regex(error.details, /ffmpeg/);
});

test('SetWorkspacePolicy strip_image_metadata: photos are stored without EXIF, upright', async (t) => {
  const auth = await svc.auth('grpc-strip');
  const policy = await svc.clients.asset('setWorkspacePolicy', auth, { allowedTypes: [], defaultVisibility: '', stripImageMetadata: true });
  t.true(policy.stripImageMetadata);
  const asset = await svc.clients.upload(auth, { filename: 'gps.jpg' }, await media('gps.jpg'));
  const stored = (await svc.clients.readFile({ path: filePath(asset) })).bytes;
  t.like(await sharp(stored).metadata(), { exif: undefined, width: 40, height: 60 });
  t.is(asset.size, stored.length);
});
