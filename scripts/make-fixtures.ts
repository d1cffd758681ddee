// Regenerates the small real files in test/fixtures/ used by the sniffing tests.
// Run from the repository root: `npx tsx scripts/make-fixtures.ts`.
// Needs sharp (a dependency), `zip` and `ffmpeg` (Debian: apt-get install zip ffmpeg).
// The outputs are committed; this script only exists so they can be remade.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { pdfFile } from './pdf-file.js';

const OUT = fileURLToPath(new URL('../test/fixtures/', import.meta.url));

/** A solid image of a known size; every format gets a distinct size so dimension tests can tell them apart. */
function canvas(width: number, height: number): ReturnType<typeof sharp> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } });
}

async function images(): Promise<void> {
  const png = await canvas(3, 2).png().toBuffer();
  await writeFile(join(OUT, 'image.png'), png);
  await writeFile(join(OUT, 'png-named.txt'), png);
  await writeFile(join(OUT, 'photo.jpg'), await canvas(4, 3).jpeg({ quality: 80 }).toBuffer());
  await writeFile(join(OUT, 'anim.gif'), await canvas(5, 4).gif().toBuffer());
  await writeFile(join(OUT, 'image.webp'), await canvas(6, 5).webp().toBuffer());
  await writeFile(
    join(OUT, 'drawing.svg'),
    '<?xml version="1.0" encoding="UTF-8"?>\n<!-- a red square -->\n' +
      '<svg xmlns="http://www.w3.org/2000/svg" width="7" height="8" viewBox="0 0 7 8"><rect width="7" height="8" fill="#c81e1e"/></svg>\n',
  );
}

/** A one-page PDF with a correct cross-reference table. */
function pdf(): Buffer {
  const content = 'BT /F1 12 Tf 10 30 Td (Switchyard) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 144 72] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  return pdfFile(objects);
}

/** 0.1 s of a 440 Hz tone, 8 kHz mono 16-bit PCM in a RIFF/WAVE container. */
function wav(): Buffer {
  const rate = 8000;
  const samples = rate / 10;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

function ffmpeg(args: string[], output: string): void {
  // bitexact and no metadata: no encoder version strings, so reruns give the same bytes.
  const exact = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact'];
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args, ...exact, join(OUT, output)], { stdio: 'inherit' });
}

function media(): void {
  const tone = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.2:sample_rate=8000'];
  const red = ['-f', 'lavfi', '-i', 'color=c=red:s=16x16:d=0.2:r=10'];
  ffmpeg([...tone, '-c:a', 'libmp3lame', '-b:a', '16k'], 'sound.mp3');
  ffmpeg([...red, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+faststart'], 'clip.mp4');
  ffmpeg([...red, '-c:v', 'libvpx', '-b:v', '20k'], 'clip.webm');
}

/** A minimal WordprocessingML package; [Content_Types].xml first, as Word writes it. */
async function docx(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'switchyard-docx-'));
  try {
    const parts: Record<string, string> = {
      '[Content_Types].xml':
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      '_rels/.rels':
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
      'word/document.xml':
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
        '<w:body><w:p><w:r><w:t>Hello from Switchyard.</w:t></w:r></w:p></w:body></w:document>',
    };
    const fixedTime = new Date('2024-01-01T00:00:00Z');
    for (const [name, text] of Object.entries(parts)) {
      await mkdir(dirname(join(work, name)), { recursive: true });
      await writeFile(join(work, name), text);
      await utimes(join(work, name), fixedTime, fixedTime);
    }
    const target = join(OUT, 'document.docx');
    await rm(target, { force: true });
    execFileSync('zip', ['-q', '-X', '-D', target, ...Object.keys(parts)], { cwd: work, stdio: 'inherit' });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function texts(): Promise<void> {
  await writeFile(join(OUT, 'notes.txt'), 'Switchyard test notes.\nA second line, with a comma; and ünïcödé.\n');
  await writeFile(join(OUT, 'table.csv'), 'id,name,price\n1,"Widget, large",9.99\n2,Gadget,4.50\n3,"Say ""hi""",0\n');
  await writeFile(
    join(OUT, 'data.json'),
    `${JSON.stringify({ name: 'switchyard', tags: ['a', 'b'], nested: { ok: true, n: 1.5 } }, null, 2)}\n`,
  );
  await writeFile(
    join(OUT, 'page.html'),
    '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Fixture</title></head>\n<body><p>Hello.</p></body>\n</html>\n',
  );
  await writeFile(join(OUT, 'empty.dat'), '');
}

await mkdir(OUT, { recursive: true });
await images();
await writeFile(join(OUT, 'document.pdf'), pdf());
await writeFile(join(OUT, 'sound.wav'), wav());
media();
await docx();
await texts();
console.log(`fixtures written to ${OUT}`);
