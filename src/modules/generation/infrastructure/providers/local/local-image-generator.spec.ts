import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import type { ImageLora, ImageRequest } from '../../../application/ports/index.js';
import { LUNA, sampleJpeg } from '../spec-fixtures.js';
import { LocalImageGenerator } from './local-image-generator.js';

const request = (over: Partial<ImageRequest> = {}): ImageRequest => ({
  jobId: 'job_a',
  workspaceId: 'ws_a',
  character: LUNA,
  prompt: 'basil on a windowsill',
  width: 512,
  height: 640,
  count: 2,
  seed: 7,
  ...over,
});

/** An offline LoRA whose style grid is one colour everywhere (64 cells × RGB). */
const lora = (rgb: [number, number, number], scale = 1): ImageLora => ({
  id: 'lora_a',
  baseModel: 'flux-dev',
  triggerWord: 'LUNA',
  scale,
  weightsUrl: null,
  style: Array.from({ length: 64 }, () => rgb).flat(),
});

const rawOf = (image: { bytes: Buffer }) => sharp(image.bytes).raw().toBuffer();

function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  return sum / values.length;
}

describe('LocalImageGenerator', () => {
  const generator = new LocalImageGenerator();

  it('renders `count` real PNGs of the requested size', async () => {
    const images = await generator.generate(request());
    expect(images).toHaveLength(2);
    for (const image of images) {
      expect(image).toMatchObject({ contentType: 'image/png', width: 512, height: 640 });
      const meta = await sharp(image.bytes).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 512, 640]);
    }
    expect(images[0].bytes.equals(images[1].bytes)).toBe(false);
  });

  it('gives the same bytes for the same request, even from another job', async () => {
    const [a] = await generator.generate(request({ count: 1 }));
    const [b] = await generator.generate(request({ count: 1, jobId: 'job_b' }));
    expect(a.bytes.equals(b.bytes)).toBe(true);
  });

  it.each([
    ['prompt', { prompt: 'mint in a teacup' }],
    ['seed', { seed: 8 }],
    ['character', { character: { ...LUNA, id: 'char_other' } }],
  ])('gives different pixels for a different %s', async (_name, change) => {
    const [a] = await generator.generate(request({ count: 1 }));
    const [b] = await generator.generate(request({ count: 1, ...change }));
    const [pa, pb] = await Promise.all([a, b].map((img) => sharp(img.bytes).raw().toBuffer()));
    expect(pa.equals(pb)).toBe(false);
  });

  it('blends the init image into image-to-image results, deterministically', async () => {
    const init = { bytes: await sampleJpeg(64, 64), contentType: 'image/jpeg' };
    const plain = await generator.generate(request({ count: 1, width: 64, height: 64 }));
    const blended = await generator.generate(request({ count: 1, width: 64, height: 64, initImage: init, strength: 0.5 }));
    const again = await generator.generate(request({ count: 1, width: 64, height: 64, initImage: init, strength: 0.5 }));
    expect(blended[0].bytes.equals(again[0].bytes)).toBe(true);
    const [p, b] = await Promise.all([plain[0], blended[0]].map((img) => sharp(img.bytes).raw().toBuffer()));
    // The init image is a flat orange (200, 90, 40): half of it pulls every pixel towards it.
    expect(Math.abs(b[0] - (p[0] + 200) / 2)).toBeLessThanOrEqual(3);
    expect(Math.abs(b[2] - (p[2] + 40) / 2)).toBeLessThanOrEqual(3);
  });

  describe('with an offline LoRA', () => {
    it('gives the same picture with its style blended over: measurably different, and the same bytes twice', async () => {
      const [plain] = await generator.generate(request({ count: 1 }));
      const [styled] = await generator.generate(request({ count: 1, lora: lora([0, 0, 0]) }));
      const [again] = await generator.generate(request({ count: 1, lora: lora([0, 0, 0]) }));
      expect(styled.bytes.equals(plain.bytes)).toBe(false);
      expect(styled.bytes.equals(again.bytes)).toBe(true);
      const [p, s] = await Promise.all([rawOf(plain), rawOf(styled)]);
      // A black style at scale 1 keeps 60 % of every channel, so the mean absolute difference is
      // 40 % of the plain image's mean (± rounding). The palettes' lightness is at least 0.25, so
      // that is tens of levels: far above the ±1 of any re-encoding, and no other change shows.
      const difference = mean(p.map((v, i) => Math.abs(v - s[i])));
      expect(difference).toBeGreaterThan(20);
      expect(Math.abs(difference - 0.4 * mean(p))).toBeLessThan(1);
    });

    it('tints toward the style colour: a blue style raises blue and lowers red', async () => {
      const [plain] = await generator.generate(request({ count: 1, width: 128, height: 128 }));
      const [styled] = await generator.generate(request({ count: 1, width: 128, height: 128, lora: lora([0, 0, 1]) }));
      const [p, s] = await Promise.all([rawOf(plain), rawOf(styled)]);
      const channel = (raw: Buffer, c: number) => mean(raw.filter((_, i) => i % 3 === c));
      expect(channel(s, 2)).toBeGreaterThan(channel(p, 2) + 20);
      expect(channel(s, 0)).toBeLessThan(channel(p, 0) - 20);
    });

    it.each([
      ['a provider LoRA (no style)', { ...lora([0, 0, 0]), style: null, weightsUrl: 'https://example.test/w.safetensors' }],
      ['scale 0', lora([0, 0, 0], 0)],
    ])('leaves the bytes as they are for %s', async (_name, applied) => {
      const [plain] = await generator.generate(request({ count: 1 }));
      const [withLora] = await generator.generate(request({ count: 1, lora: applied }));
      expect(withLora.bytes.equals(plain.bytes)).toBe(true);
    });
  });
});
