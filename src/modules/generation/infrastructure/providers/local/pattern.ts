import { seededRandom } from '../shared/seeded.js';

type Rgb = [number, number, number];

interface Disc {
  x: number;
  y: number;
  r: number;
  dx: number;
  dy: number;
  colour: Rgb;
}

/** A palette and shapes picked from the seed: the whole look of one local image. */
export interface PatternSpec {
  from: Rgb;
  to: Rgb;
  angle: number;
  discs: Disc[];
}

function hsl(h: number, s: number, l: number): Rgb {
  const k = (n: number) => (n + h * 12) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

export function patternSpec(seed: number): PatternSpec {
  const random = seededRandom(seed);
  const hue = random();
  const discs: Disc[] = [];
  const count = 3 + Math.floor(random() * 3);
  for (let i = 0; i < count; i++) {
    discs.push({ x: random(), y: random(), r: 0.08 + random() * 0.22, dx: random() - 0.5, dy: random() - 0.5, colour: hsl((hue + 0.3 + random() * 0.4) % 1, 0.6, 0.45 + random() * 0.3) });
  }
  return { from: hsl(hue, 0.55, 0.25 + random() * 0.2), to: hsl((hue + 0.15) % 1, 0.65, 0.6 + random() * 0.2), angle: random() * Math.PI * 2, discs };
}

/**
 * Paints the pattern as raw RGB: a banded linear gradient with translucent discs. `phase`
 * (0..1) moves the discs, which is how the local video animates. Bands and flat discs keep
 * PNG encoding fast; discs are painted span by span so the cost is the pixels they cover.
 */
export function paint(spec: PatternSpec, width: number, height: number, phase = 0): Buffer {
  const out = Buffer.alloc(width * height * 3);
  paintGradient(out, spec, width, height);
  const unit = Math.min(width, height);
  for (const d of spec.discs) {
    const cx = (d.x + d.dx * phase) * width;
    const cy = (d.y + d.dy * phase) * height;
    const r = d.r * unit;
    for (let y = Math.max(0, Math.ceil(cy - r)); y <= Math.min(height - 1, Math.floor(cy + r)); y++) {
      const half = Math.sqrt(r * r - (y - cy) ** 2);
      const x0 = Math.max(0, Math.ceil(cx - half));
      const x1 = Math.min(width - 1, Math.floor(cx + half));
      for (let o = (y * width + x0) * 3, end = (y * width + x1) * 3; o <= end; o += 3) {
        out[o] = (out[o] + d.colour[0]) >> 1;
        out[o + 1] = (out[o + 1] + d.colour[1]) >> 1;
        out[o + 2] = (out[o + 2] + d.colour[2]) >> 1;
      }
    }
  }
  return out;
}

const BANDS = 16;
// Hot loops read a module binding, not the global `Math`: global look-ups are slow inside vm contexts (jest).
const { round } = Math;

function paintGradient(out: Buffer, spec: PatternSpec, width: number, height: number): void {
  const colours: Buffer[] = [];
  for (let band = 0; band <= BANDS; band++) {
    colours.push(Buffer.from(spec.from.map((from, c) => Math.round(from + ((spec.to[c] - from) * band) / BANDS))));
  }
  const cos = Math.cos(spec.angle);
  const sin = Math.sin(spec.angle);
  const span = Math.abs(cos) * width + Math.abs(sin) * height || 1;
  const offset = Math.min(0, cos * width) + Math.min(0, sin * height);
  // A row crosses at most BANDS + 1 bands, and a band's end can be solved for: each run is one
  // native fill, not a computation and three writes per pixel (the gradient was 85 % of painting).
  for (let y = 0; y < height; y++) {
    const shift = y * sin - offset;
    const bandAt = (x: number) => round(((x * cos + shift) / span) * BANDS);
    const row = y * width * 3;
    for (let x = 0; x < width; ) {
      const band = bandAt(x);
      let end = width;
      if (cos !== 0) {
        const edge = (((cos > 0 ? band + 0.5 : band - 0.5) / BANDS) * span - shift) / cos;
        end = Math.min(width, Math.max(x + 1, Math.ceil(edge)));
        // The solved edge may be a pixel off in floating point: settle it on bandAt itself.
        while (end > x + 1 && bandAt(end - 1) !== band) end--;
        while (end < width && bandAt(end) === band) end++;
      }
      out.fill(colours[band], row + x * 3, row + end * 3);
      x = end;
    }
  }
}

/** Mixes `base` into `pattern` in place: weight 1 keeps the pattern, 0 the base image. */
export function blendInto(pattern: Buffer, base: Buffer, patternWeight: number): Buffer {
  for (let i = 0; i < pattern.length; i++) pattern[i] = pattern[i] * patternWeight + base[i] * (1 - patternWeight);
  return pattern;
}
