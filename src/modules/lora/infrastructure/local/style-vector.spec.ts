import { describe, expect, it } from '@jest/globals';
import { LORA_STYLE_GRID } from '../../../generation/index.js';
import { sgdStep, startFit, styleVector, TRAINING_SIDE, trainingSet } from './style-vector.js';

/** A TRAINING_SIDE² RGB image whose channel values are `value(x, y)` (0..255), the same in R, G and B. */
function image(value: (x: number, y: number) => number): Buffer {
  const raw = Buffer.alloc(TRAINING_SIDE * TRAINING_SIDE * 3);
  for (let y = 0; y < TRAINING_SIDE; y++) for (let x = 0; x < TRAINING_SIDE; x++) raw.fill(value(x, y), (y * TRAINING_SIDE + x) * 3, (y * TRAINING_SIDE + x + 1) * 3);
  return raw;
}

function fitted(images: Buffer[], seed: string, steps = 300, samples = 4096): number[] {
  const fit = startFit(trainingSet(images), seed);
  for (let step = 0; step < steps; step++) expect(sgdStep(fit, samples, step, steps)).toBe(samples);
  return styleVector(fit);
}

describe('style vector fit', () => {
  it('recovers a left-to-right ramp at the cell centres, where bilinear up-sampling can draw it exactly', () => {
    // Grey rising 6 levels a pixel: cell k's centre (pixel 4k + 1.5) has (24k + 9) / 255.
    const style = fitted([image((x) => 6 * x)], 'lora_ramp');
    for (let row = 0; row < LORA_STYLE_GRID; row++) {
      for (let column = 1; column < LORA_STYLE_GRID - 1; column++) {
        const at = (row * LORA_STYLE_GRID + column) * 3;
        expect(Math.abs(style[at] - (24 * column + 9) / 255)).toBeLessThan(0.02);
        expect(style[at + 2]).toBeCloseTo(style[at], 1);
      }
    }
  });

  it('is deterministic for a seed, and another seed samples differently', () => {
    const images = [image((x, y) => (x * 7 + y * 3) % 256), image((x, y) => (x * y) % 256)];
    const a = fitted(images, 'lora_a', 50, 512);
    expect(fitted(images, 'lora_a', 50, 512)).toEqual(a);
    expect(fitted(images, 'lora_b', 50, 512)).not.toEqual(a);
  });

  it('refuses pixels that are not TRAINING_SIDE² RGB', () => {
    expect(() => trainingSet([Buffer.alloc(10)])).toThrow(/RGB/);
  });
});
