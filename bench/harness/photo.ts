import sharp from 'sharp';

/**
 * A JPEG shaped like a photograph rather than a flat test card: a sky
 * gradient over a darker, textured ground with a wavy horizon, soft blobs and
 * hard-edged shapes, and a film grain of pseudo-random noise (a fixed seed, so
 * every run encodes the same bytes). Quality 90, 4:2:0, as cameras and phones
 * write; a 4000x3000 one is about as large as a 12-megapixel photo.
 */
export async function photoLikeJpeg(width: number, height: number, seed = 1): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let state = seed >>> 0;
  const grain = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return ((state >>> 24) - 128) / 10;
  };
  const clamp = (value: number): number => (value < 0 ? 0 : value > 255 ? 255 : value);
  // Value noise at 64 and 16 px (foliage, rock, cloth): detail that survives a downscale to 512 px, as a real photo's does.
  const [coarse, fine] = await Promise.all([64, 16].map((cell) => valueNoise(width, height, cell, grain)));
  for (let y = 0; y < height; y++) {
    const v = y / height;
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const horizon = 0.55 + 0.06 * Math.sin(u * 9.3) + 0.02 * Math.sin(u * 41);
      let r: number;
      let g: number;
      let b: number;
      if (v < horizon) {
        // Sky: blue to pale towards the horizon, with soft clouds.
        const cloud = Math.max(0, Math.sin(u * 7 + v * 3) * Math.sin(u * 3.1 - v * 11)) * 90 + (1.5 * (coarse![y * width + x]! - 128)) / 10;
        r = 90 + 110 * (v / horizon) + cloud;
        g = 140 + 80 * (v / horizon) + cloud;
        b = 230 - 20 * (v / horizon) + cloud * 0.8;
      } else {
        // Ground: green-brown with stripes (fields) and fine texture.
        const field = Math.sin(u * 60 + v * 25) > 0.3 ? 25 : -10;
        const texture =
          18 * Math.sin(x * 0.9) * Math.sin(y * 1.3) + (4 * (coarse![y * width + x]! - 128) + 6 * (fine![y * width + x]! - 128)) / 10;
        r = 80 + field + texture + 40 * v;
        g = 110 + field * 0.6 + texture - 30 * v;
        b = 50 + texture * 0.5;
      }
      // A few hard-edged shapes (buildings, a sun) give the encoder edges to keep.
      const block = Math.floor(u * 23) % 5 === 0 && v > horizon - 0.12 && v < horizon + 0.05;
      if (block) {
        r = 150 + 40 * Math.sin(y * 0.2);
        g = r - 10;
        b = r - 20;
      }
      const dx = u - 0.78;
      const dy = v - 0.18;
      if (dx * dx + dy * dy < 0.002) {
        r = 255;
        g = 240;
        b = 190;
      }
      const at = (y * width + x) * 3;
      raw[at] = clamp(r + grain());
      raw[at + 1] = clamp(g + grain());
      raw[at + 2] = clamp(b + grain());
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90, chromaSubsampling: '4:2:0' })
    .toBuffer();
}

/** Smooth noise: random values `cell` pixels apart, scaled up (bicubic) to the whole image; one byte per pixel around 128. */
async function valueNoise(width: number, height: number, cell: number, random: () => number): Promise<Buffer> {
  const columns = Math.ceil(width / cell);
  const rows = Math.ceil(height / cell);
  const grid = Buffer.from(Array.from({ length: columns * rows }, () => 128 + random() * 8));
  return sharp(grid, { raw: { width: columns, height: rows, channels: 1 } })
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer();
}
