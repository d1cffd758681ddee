import type { ImageSize } from './image-size.js';

/**
 * Canvas size from a WebP file's first chunk (RFC 9649): VP8X (extended),
 * `VP8 ` (lossy key frame) or VP8L (lossless). Needs only the first 30 bytes.
 */
export function webpSize(head: Uint8Array): ImageSize | undefined {
  if (head.length < 30) return undefined;
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') return undefined;
  switch (bytes.toString('latin1', 12, 16)) {
    case 'VP8X':
      return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
    case 'VP8 ': {
      if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return undefined;
      const width = bytes.readUInt16LE(26) & 0x3fff;
      const height = bytes.readUInt16LE(28) & 0x3fff;
      return width > 0 && height > 0 ? { width, height } : undefined;
    }
    case 'VP8L': {
      if (bytes[20] !== 0x2f) return undefined;
      const bits = bytes.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    default:
      return undefined;
  }
}
