import { upstreamFailed } from '../shared/provider-failure.js';

/**
 * The offline LoRA's style vector is a LORA_STYLE_GRID × LORA_STYLE_GRID grid of RGB colours over
 * the whole image, row-major from the top-left cell, channels R, G, B, each 0..1:
 * `style[(row * LORA_STYLE_GRID + column) * 3 + channel]`. The lora context trains it; this
 * context applies it. Both place cell centres on the image through `styleAxis`, so the grid the
 * trainer fits is the grid this file paints.
 */
export const LORA_STYLE_GRID = 8;

const STYLE_LENGTH = LORA_STYLE_GRID * LORA_STYLE_GRID * 3;

/** At scale 1 the style takes this share of every pixel: clearly visible, the picture still shows through. */
const BLEND_PER_SCALE = 0.4;

/** Even a large scale leaves some of the picture, or the image would be the bare grid. */
const MAX_BLEND = 0.9;

/** Where the pixels of one image axis fall on the grid: the two nearest cells and the upper one's weight. */
export interface StyleAxis {
  lower: Int32Array;
  upper: Int32Array;
  upperWeight: Float64Array;
}

/**
 * Bilinear up-sampling along one axis of `length` pixels: a pixel centre at cell coordinate
 * `(i + 0.5) / length * GRID - 0.5`, clamped at the edges so border pixels take the border cell.
 */
export function styleAxis(length: number): StyleAxis {
  const axis: StyleAxis = { lower: new Int32Array(length), upper: new Int32Array(length), upperWeight: new Float64Array(length) };
  const last = LORA_STYLE_GRID - 1;
  for (let i = 0; i < length; i++) {
    const at = Math.min(last, Math.max(0, ((i + 0.5) / length) * LORA_STYLE_GRID - 0.5));
    const lower = Math.floor(at);
    axis.lower[i] = lower;
    axis.upper[i] = Math.min(last, lower + 1);
    axis.upperWeight[i] = at - lower;
  }
  return axis;
}

/**
 * Blends raw RGB `pixels` in place toward the style grid, up-sampled bilinearly to the image, by
 * `scale` × 40 % (at most 90 %). Scale 0 leaves the bytes as they are. Deterministic.
 */
export function applyStyle(pixels: Buffer, width: number, height: number, style: readonly number[], scale: number): void {
  if (style.length !== STYLE_LENGTH || !style.every(Number.isFinite)) {
    throw upstreamFailed('local', 'bad_input', `The LoRA style is not ${STYLE_LENGTH} finite numbers; the local renderer cannot apply it.`);
  }
  const blend = Math.min(MAX_BLEND, Math.max(0, scale * BLEND_PER_SCALE));
  if (blend === 0) return;
  const columns = styleAxis(width);
  const rows = styleAxis(height);
  const row = new Float64Array(LORA_STYLE_GRID * 3);
  for (let y = 0; y < height; y++) {
    styleRow(style, rows.lower[y], rows.upper[y], rows.upperWeight[y], blend * 255, row);
    blendRow(pixels, y * width * 3, width, columns, row, 1 - blend);
  }
}

/** One image row's grid colours, already scaled to `weight` (blend × 255): rows interpolated once, not per pixel. */
function styleRow(style: readonly number[], lower: number, upper: number, upperWeight: number, weight: number, out: Float64Array): void {
  const a = lower * LORA_STYLE_GRID * 3;
  const b = upper * LORA_STYLE_GRID * 3;
  for (let i = 0; i < out.length; i++) {
    const value = style[a + i] + (style[b + i] - style[a + i]) * upperWeight;
    out[i] = Math.min(1, Math.max(0, value)) * weight;
  }
}

function blendRow(pixels: Buffer, start: number, width: number, columns: StyleAxis, row: Float64Array, keep: number): void {
  const { lower, upper, upperWeight } = columns;
  for (let x = 0, o = start; x < width; x++, o += 3) {
    const a = lower[x] * 3;
    const b = upper[x] * 3;
    const w = upperWeight[x];
    // Both terms are ≥ 0 and sum to at most 255: `| 0` after + 0.5 rounds without a call to Math.
    pixels[o] = (pixels[o] * keep + row[a] + (row[b] - row[a]) * w + 0.5) | 0;
    pixels[o + 1] = (pixels[o + 1] * keep + row[a + 1] + (row[b + 1] - row[a + 1]) * w + 0.5) | 0;
    pixels[o + 2] = (pixels[o + 2] * keep + row[a + 2] + (row[b + 2] - row[a + 2]) * w + 0.5) | 0;
  }
}
