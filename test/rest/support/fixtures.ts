import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** What the REST API must report for each fixture: the sniffed type, the url's extension, and the media facts it has besides an image's size. */
export const FIXTURES = Object.freeze({
  'image.png': { type: 'image/png', ext: 'png', image: true, facts: ['placeholder'] },
  'photo.jpg': { type: 'image/jpeg', ext: 'jpg', image: true, facts: ['placeholder'] },
  'anim.gif': { type: 'image/gif', ext: 'gif', image: true, facts: ['placeholder'] },
  'image.webp': { type: 'image/webp', ext: 'webp', image: true, facts: ['placeholder'] },
  'drawing.svg': { type: 'image/svg+xml', ext: 'svg', image: true, facts: [] },
  'document.pdf': { type: 'application/pdf', ext: 'pdf', image: false, facts: ['pages'] },
  'sound.wav': { type: 'audio/wav', ext: 'wav', image: false, facts: ['durationMs'] },
  'sound.mp3': { type: 'audio/mpeg', ext: 'mp3', image: false, facts: ['durationMs'] },
  'clip.mp4': { type: 'video/mp4', ext: 'mp4', image: false, facts: ['durationMs', 'height', 'width'] },
  'clip.webm': { type: 'video/webm', ext: 'webm', image: false, facts: ['durationMs', 'height', 'width'] },
  'document.docx': {
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ext: 'docx',
    image: false,
    facts: [],
  },
  'notes.txt': { type: 'text/plain', ext: 'txt', image: false, facts: [] },
  'table.csv': { type: 'text/csv', ext: 'csv', image: false, facts: [] },
  'data.json': { type: 'application/json', ext: 'json', image: false, facts: [] },
  'page.html': { type: 'text/html', ext: 'html', image: false, facts: [] },
  'empty.dat': { type: 'application/octet-stream', ext: 'bin', image: false, facts: [] },
  'png-named.txt': { type: 'image/png', ext: 'png', image: true, facts: ['placeholder'] },
} as const);

export type FixtureName = keyof typeof FIXTURES;

export interface Fixture {
  readonly name: FixtureName;
  readonly bytes: Buffer;
  readonly sha256: string;
}

export async function fixture(name: FixtureName): Promise<Fixture> {
  const bytes = await readFile(FIXTURES_DIR + name);
  return { name, bytes, sha256: sha256(bytes) };
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Deterministic bytes with no file signature (sniffed as application/octet-stream). */
export function noise(size: number, seed = 7): Buffer {
  const bytes = Buffer.alloc(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = (state & 0x7f) | 0x80;
  }
  return bytes;
}
