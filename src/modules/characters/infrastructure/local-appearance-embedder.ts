import { loadSharp } from '../../../platform/media/sharp.js';
import { AppError } from '../../../core/index.js';
import { AppearanceEmbedder } from '../application/ports/appearance-embedder.js';
import { EMBEDDING_DIMENSIONS, l2Normalize } from '../domain/embedding.js';

const SIDE = 32;
const MAX_INPUT_PIXELS = 50_000_000;

/**
 * Offline appearance vector from the pixels: the same pixels always give the same vector.
 * 256 numbers of 16x16 luminance layout, 192 of an 8x8 colour thumbnail and 64 of a 4x4x4 colour
 * histogram, each part normalised, then the whole. Not a face model; it keeps the pipeline honest.
 */
export class LocalAppearanceEmbedder extends AppearanceEmbedder {
  async embed(image: Buffer): Promise<number[]> {
    const sharp = await loadSharp();
    let rgb: Buffer;
    try {
      rgb = await sharp(image, { limitInputPixels: MAX_INPUT_PIXELS })
        .rotate()
        .flatten({ background: '#808080' })
        .toColourspace('srgb')
        // No shrink-on-load: JPEG and WebP would otherwise be scaled differently from PNG of the same pixels.
        .resize(SIDE, SIDE, { fit: 'fill', kernel: 'cubic', fastShrinkOnLoad: false })
        .raw()
        .toBuffer();
    } catch (err) {
      throw new AppError('unsupported_media_type', `The image could not be decoded: ${(err as Error).message}`);
    }
    const vector = l2Normalize([...layout(rgb), ...thumbnail(rgb), ...histogram(rgb)]);
    if (vector.length !== EMBEDDING_DIMENSIONS) throw new Error('local embedding has the wrong size');
    return vector;
  }
}

function pixel(rgb: Buffer, x: number, y: number): [number, number, number] {
  const i = (y * SIDE + x) * 3;
  return [rgb[i], rgb[i + 1], rgb[i + 2]];
}

/** Mean of each channel over a block of `size` x `size` pixels. */
function block(rgb: Buffer, bx: number, by: number, size: number): [number, number, number] {
  const sum = [0, 0, 0];
  for (let y = by * size; y < (by + 1) * size; y++) {
    for (let x = bx * size; x < (bx + 1) * size; x++) {
      const p = pixel(rgb, x, y);
      sum[0] += p[0];
      sum[1] += p[1];
      sum[2] += p[2];
    }
  }
  const n = size * size * 255;
  return [sum[0] / n, sum[1] / n, sum[2] / n];
}

/** 16x16 luminance, centred on its mean: where light and dark sit. */
function layout(rgb: Buffer): number[] {
  const lum: number[] = [];
  for (let y = 0; y < 16; y++) {
    for (let x = 0; x < 16; x++) {
      const [r, g, b] = block(rgb, x, y, 2);
      lum.push(0.2126 * r + 0.7152 * g + 0.0722 * b);
    }
  }
  const mean = lum.reduce((s, v) => s + v, 0) / lum.length;
  return l2Normalize(lum.map((v) => v - mean));
}

/** 8x8 colour thumbnail, centred on mid-grey. */
function thumbnail(rgb: Buffer): number[] {
  const out: number[] = [];
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) out.push(...block(rgb, x, y, 4).map((c) => c - 0.5));
  }
  return l2Normalize(out);
}

/** 4 levels per channel, 64 bins, as shares of the pixels. */
function histogram(rgb: Buffer): number[] {
  const bins = new Array<number>(64).fill(0);
  for (let i = 0; i < rgb.length; i += 3) {
    bins[(rgb[i] >> 6) * 16 + (rgb[i + 1] >> 6) * 4 + (rgb[i + 2] >> 6)] += 1;
  }
  return l2Normalize(bins);
}
