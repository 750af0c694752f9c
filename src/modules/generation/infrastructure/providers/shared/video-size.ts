import type { AspectRatio } from '../../../application/ports/index.js';

/**
 * A video frame size by its short side (720 → 720p): the long side follows the aspect ratio, and
 * both are even, as yuv420p needs. 9:16 at 720 is 720×1280, 1:1 720×720, 16:9 1280×720.
 */
export function videoSize(aspect: AspectRatio, shortSide: number): { width: number; height: number } {
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  const short = even(shortSide);
  const long = even((shortSide * 16) / 9);
  if (aspect === '9:16') return { width: short, height: long };
  if (aspect === '16:9') return { width: long, height: short };
  return { width: short, height: short };
}
