import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '../shared/seeded.js';
import { LORA_STYLE_GRID, applyStyle, styleAxis } from './lora-style.js';

const CELLS = LORA_STYLE_GRID * LORA_STYLE_GRID;

const uniformStyle = (rgb: [number, number, number]): number[] => Array.from({ length: CELLS }, () => rgb).flat();

/** White cells in the left half of the grid, black in the right half. */
const splitStyle = (): number[] =>
  Array.from({ length: CELLS }, (_, cell) => (cell % LORA_STYLE_GRID < LORA_STYLE_GRID / 2 ? [1, 1, 1] : [0, 0, 0])).flat();

const flat = (width: number, height: number, value: number) => Buffer.alloc(width * height * 3, value);

function noise(width: number, height: number, seed: number): Buffer {
  const random = seededRandom(seed);
  return Buffer.from(Array.from({ length: width * height * 3 }, () => Math.floor(random() * 256)));
}

describe('applyStyle', () => {
  it('pulls every pixel 40 % of the way to a uniform style colour at scale 1', () => {
    const before = noise(24, 16, 1);
    const after = Buffer.from(before);
    const target = [255, 0, 128];
    applyStyle(after, 24, 16, uniformStyle([1, 0, 128 / 255]), 1);
    for (let i = 0; i < before.length; i++) {
      const expected = before[i] * 0.6 + target[i % 3] * 0.4;
      expect(Math.abs(after[i] - expected)).toBeLessThanOrEqual(0.5 + 1e-9);
    }
  });

  it('tints each region toward its own cells, blending smoothly between them', () => {
    const pixels = flat(64, 8, 128);
    applyStyle(pixels, 64, 8, splitStyle(), 1);
    const row = Array.from({ length: 64 }, (_, x) => pixels[x * 3]);
    // Edge pixels take the border cells: 0.6 × 128 + 0.4 × 255 and 0.6 × 128.
    expect(row[0]).toBe(179);
    expect(row[63]).toBe(77);
    for (let x = 1; x < 64; x++) expect(row[x]).toBeLessThanOrEqual(row[x - 1]);
    // The middle falls between the two halves: the grid is up-sampled, not stamped.
    expect(row[31]).toBeGreaterThan(77);
    expect(row[31]).toBeLessThan(179);
  });

  it('changes nothing at scale 0', () => {
    const before = noise(16, 16, 2);
    const after = Buffer.from(before);
    applyStyle(after, 16, 16, splitStyle(), 0);
    expect(after.equals(before)).toBe(true);
  });

  it('caps the blend at 90 % for a large scale, so the picture still shows', () => {
    const pixels = flat(8, 8, 100);
    applyStyle(pixels, 8, 8, uniformStyle([0, 0, 0]), 5);
    expect([...new Set(pixels)]).toEqual([10]);
  });

  it('is deterministic', () => {
    const a = noise(40, 30, 3);
    const b = Buffer.from(a);
    const style = Array.from({ length: CELLS * 3 }, seededRandom(4));
    applyStyle(a, 40, 30, style, 1.3);
    applyStyle(b, 40, 30, style, 1.3);
    expect(a.equals(b)).toBe(true);
  });

  it.each([
    ['too short', [0.5, 0.5, 0.5]],
    ['not finite', [...uniformStyle([0.5, 0.5, 0.5]).slice(1), Number.NaN]],
  ])('refuses a style vector that is %s', (_name, style) => {
    expect(() => applyStyle(flat(4, 4, 0), 4, 4, style, 1)).toThrow(expect.objectContaining({ code: 'upstream_failed' }));
  });
});

describe('styleAxis', () => {
  it('puts cell centres where the grid divides the image, clamped at the borders', () => {
    const axis = styleAxis(LORA_STYLE_GRID * 4);
    // Cell k's centre is at pixel 4k + 1.5 of 32: pixel 6 (centre 6.5) lies an eighth of the way from cell 1 to cell 2.
    expect([axis.lower[0], axis.upper[0], axis.upperWeight[0]]).toEqual([0, 1, 0]);
    expect([axis.lower[6], axis.upper[6], axis.upperWeight[6]]).toEqual([1, 2, 0.125]);
    expect([axis.lower[31], axis.upper[31], axis.upperWeight[31]]).toEqual([7, 7, 0]);
  });
});
