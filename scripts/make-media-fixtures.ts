// Regenerates test/fixtures/media/: short videos and sounds of every container
// the describer reads (ffmpeg and sox make them), a PDF of three pages, and
// photos carrying GPS EXIF and an orientation in each format a workspace
// policy strips. Run from the repository root: `npx tsx scripts/make-media-fixtures.ts`.
// Needs ffmpeg and sox (Debian: apt-get install ffmpeg sox). The outputs are
// committed, so tests need neither; this script exists so they can be remade.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { pdfFile } from './pdf-file.js';

const OUT = fileURLToPath(new URL('../test/fixtures/media/', import.meta.url));

/** No encoder strings or times in the files, so reruns with one ffmpeg give the same bytes. */
const EXACT = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact'];

function ffmpeg(args: string[], output: string): void {
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args, join(OUT, output)], { stdio: 'inherit' });
}

/** 2 s of a test pattern at 320 × 240 (a moving picture, so frames differ) with a tone where the container takes one. */
function videos(): void {
  const picture = ['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=2'];
  const tone = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2:sample_rate=48000'];
  const h264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', '25'];
  // moov after the media data, as most cameras and ffmpeg's default write it: the describer reads it from the end.
  ffmpeg([...picture, ...tone, ...h264, '-c:a', 'aac', '-b:a', '64k', '-shortest', ...EXACT], 'video.mp4');
  ffmpeg([...picture, ...h264, '-movflags', '+faststart', ...EXACT], 'video-faststart.mp4');
  ffmpeg([...picture, ...h264, ...EXACT], 'video.mov');
  ffmpeg(
    [...picture, ...tone, '-c:v', 'libvpx-vp9', '-b:v', '200k', '-deadline', 'realtime', '-c:a', 'libopus', '-shortest', ...EXACT],
    'video.webm',
  );
  ffmpeg([...picture, ...h264, ...EXACT], 'video.mkv');
  // Filmed upright on a phone: stored 320 × 240 with a display matrix turning it a quarter, shown 240 × 320.
  ffmpeg(['-i', join(OUT, 'video-faststart.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=90', ...EXACT], 'video-rotated.mp4');
}

/** 1.5 s of a tone in every audio format the describer times. */
function sounds(): void {
  const tone = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1.5:sample_rate=44100'];
  ffmpeg([...tone, '-c:a', 'libmp3lame', '-b:a', '64k', ...EXACT], 'sound.mp3');
  ffmpeg([...tone, '-c:a', 'aac', '-b:a', '64k', ...EXACT], 'sound.m4a');
  ffmpeg([...tone, '-c:a', 'aac', '-b:a', '64k', '-f', 'adts', ...EXACT], 'sound.aac');
  ffmpeg([...tone, '-c:a', 'libvorbis', ...EXACT], 'sound.ogg');
  ffmpeg([...tone, '-c:a', 'libopus', ...EXACT], 'sound.opus');
  execFileSync('sox', ['-n', '-r', '44100', '-c', '1', '-b', '16', join(OUT, 'sound.flac'), 'synth', '1.5', 'sine', '440']);
  execFileSync('sox', ['-n', '-r', '8000', '-c', '1', '-b', '16', join(OUT, 'sound.wav'), 'synth', '1.5', 'sine', '440']);
}

/** A PDF of three pages (a page tree under one root) with a correct cross-reference table. */
function pdf(pages: number): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${3 + i} 0 R`).join(' ')}] /Count ${pages} >>`,
  ];
  for (let i = 0; i < pages; i++) objects.push('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 144 72] >>');
  return pdfFile(objects);
}

/**
 * A 60 × 40 photo (left half red, right half blue, so a rotation shows) stored
 * with EXIF orientation 6 (shown 40 × 60) and a GPS position, in each format
 * the policy strips.
 */
async function photos(): Promise<void> {
  const halves = Buffer.alloc(60 * 40 * 3);
  for (let i = 0; i < 60 * 40; i++) halves.set(i % 60 < 30 ? [220, 20, 20] : [20, 20, 220], i * 3);
  const exif = {
    IFD0: { Make: 'Switchyard', Model: 'Fixture' },
    IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4000/100' },
  };
  const image = () =>
    sharp(halves, { raw: { width: 60, height: 40, channels: 3 } })
      .withExif(exif)
      .withMetadata({ orientation: 6 });
  await writeFile(join(OUT, 'gps.jpg'), await image().jpeg({ quality: 90 }).toBuffer());
  await writeFile(join(OUT, 'gps.png'), await image().png().toBuffer());
  await writeFile(join(OUT, 'gps.webp'), await image().webp({ quality: 90 }).toBuffer());
  await writeFile(join(OUT, 'gps.avif'), await image().avif({ quality: 70 }).toBuffer());
}

await mkdir(OUT, { recursive: true });
videos();
sounds();
await writeFile(join(OUT, 'three-pages.pdf'), pdf(3));
await photos();
console.log(`media fixtures written to ${OUT}`);
