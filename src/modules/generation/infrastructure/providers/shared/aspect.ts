import type { AspectRatio } from '../../../application/ports/index.js';

const RATIOS: Record<AspectRatio, number> = { '9:16': 9 / 16, '1:1': 1, '16:9': 16 / 9 };

/** Width and height for an aspect ratio, with the long side `longSide` and both sides even. */
export function frameSize(aspect: AspectRatio, longSide: number): { width: number; height: number } {
  const ratio = RATIOS[aspect];
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  return ratio >= 1 ? { width: even(longSide), height: even(longSide / ratio) } : { width: even(longSide * ratio), height: even(longSide) };
}

/** Replicate's aspect_ratio names a model understands, when the size matches one exactly. */
const NAMED = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '4:5', '5:4', '21:9', '9:21'];

export function namedAspectRatio(width: number, height: number): string | undefined {
  return NAMED.find((name) => {
    const [w, h] = name.split(':').map(Number);
    return width * h === height * w;
  });
}

/** The named ratio closest to `width`:`height` (by log of the ratio), for models that take no free size. */
export function nearestAspectRatio(width: number, height: number): string {
  const distance = (name: string) => {
    const [w, h] = name.split(':').map(Number);
    return Math.abs(Math.log(width / height) - Math.log(w / h));
  };
  return NAMED.reduce((best, name) => (distance(name) < distance(best) ? name : best));
}
