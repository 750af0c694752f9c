import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import type { ImageRequest } from '../../../application/ports/index.js';
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
});
