import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import type { VideoRequest } from '../../../application/ports/index.js';
import { LUNA, sampleJpeg } from '../spec-fixtures.js';
import { frameDelays, LocalVideoGenerator } from './local-video-generator.js';

const request = (over: Partial<VideoRequest> = {}): VideoRequest => ({
  jobId: 'job_v',
  character: LUNA,
  sceneDescription: 'a breezy rooftop garden',
  durationSeconds: 6,
  aspectRatio: '9:16',
  ...over,
});

describe('LocalVideoGenerator', () => {
  const generator = new LocalVideoGenerator();

  it('writes a looping animated GIF of several frames, its delays adding up to the duration', async () => {
    const { video } = await generator.generate(request());
    expect(video.bytes.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(video.bytes.includes(Buffer.from('NETSCAPE2.0'))).toBe(true);
    const meta = await sharp(video.bytes, { animated: true }).metadata();
    expect(meta.pages).toBeGreaterThan(1);
    expect(meta.loop).toBe(0);
    expect(meta.delay!.reduce((a, b) => a + b, 0)).toBe(6_000);
    expect(video).toMatchObject({ contentType: 'image/gif', durationSeconds: 6, width: meta.width, height: meta.pageHeight });
  });

  it.each([
    ['9:16', (w: number, h: number) => w * 16 === h * 9],
    ['1:1', (w: number, h: number) => w === h],
    ['16:9', (w: number, h: number) => Math.abs(w / h - 16 / 9) < 0.02],
  ] as const)('matches the %s aspect ratio, with a PNG thumbnail of the same size', async (aspectRatio, fits) => {
    const { video, thumbnail } = await generator.generate(request({ aspectRatio }));
    expect(fits(video.width!, video.height!)).toBe(true);
    const thumb = await sharp(thumbnail!.bytes).metadata();
    expect([thumb.format, thumb.width, thumb.height]).toEqual(['png', video.width, video.height]);
  });

  it('animates: frames differ', async () => {
    const { video } = await generator.generate(request());
    const meta = await sharp(video.bytes, { animated: true }).metadata();
    const frames = await Promise.all([0, 3].map((page) => sharp(video.bytes, { page }).raw().toBuffer()));
    expect(meta.pages).toBeGreaterThan(3);
    expect(frames[0].equals(frames[1])).toBe(false);
  });

  it('is deterministic, and the scene changes the result', async () => {
    const reference = { bytes: await sampleJpeg(), contentType: 'image/jpeg' };
    const a = await generator.generate(request({ referenceImage: reference }));
    const b = await generator.generate(request({ referenceImage: reference, jobId: 'job_other' }));
    const c = await generator.generate(request({ referenceImage: reference, sceneDescription: 'a night market' }));
    expect(a.video.bytes.equals(b.video.bytes)).toBe(true);
    expect(a.video.bytes.equals(c.video.bytes)).toBe(false);
  });

  it('makes a motion transfer from the character image, keyed on the driving video', async () => {
    const characterImage = { bytes: await sampleJpeg(), contentType: 'image/jpeg' };
    const run = (video: string) =>
      generator.motionTransfer({ jobId: 'j', character: LUNA, characterImage, referenceVideo: { bytes: Buffer.from(video), contentType: 'video/mp4' }, durationSeconds: 12, aspectRatio: '1:1' });
    const [a, b, c] = await Promise.all([run('moves-1'), run('moves-1'), run('moves-2')]);
    expect(a.video.bytes.equals(b.video.bytes)).toBe(true);
    expect(a.video.bytes.equals(c.video.bytes)).toBe(false);
    expect((await sharp(a.video.bytes, { animated: true }).metadata()).pages).toBeGreaterThan(1);
    expect(a.video.durationSeconds).toBe(12);
  });

  it('splits a duration into GIF-sized frame delays that sum to it', () => {
    for (const seconds of [1, 5, 7, 60]) {
      const delays = frameDelays(seconds);
      expect(delays.reduce((x, y) => x + y, 0)).toBe(seconds * 1000);
      expect(delays.every((d) => d % 10 === 0 && d > 0)).toBe(true);
    }
  });
});
