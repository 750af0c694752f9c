import { describe, expect, it, jest } from '@jest/globals';
import sharp from 'sharp';
import { probeMedia, runFfmpeg } from '../../../../../platform/media/ffmpeg.js';
import type { VideoRequest } from '../../../application/ports/index.js';
import { LUNA, rejection, sampleJpeg } from '../spec-fixtures.js';
import { LocalVideoGenerator } from './local-video-generator.js';

// Each test encodes real video with ffmpeg: on a busy 2-core machine that can take longer than jest's 5 s default.
jest.setTimeout(30_000);

const request = (over: Partial<VideoRequest> = {}): VideoRequest => ({
  jobId: 'job_v',
  character: LUNA,
  sceneDescription: 'a breezy rooftop garden',
  durationSeconds: 6,
  aspectRatio: '9:16',
  ...over,
});

/** Video frames `indices` of an MP4, decoded to RGB. */
async function framesAt(mp4: Buffer, indices: number[]): Promise<Buffer[]> {
  const select = indices.map((n) => `eq(n\\,${n})`).join('+');
  const { stdout } = await runFfmpeg(['-i', 'pipe:0', '-vf', `select=${select}`, '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], { input: mp4 });
  const each = stdout.length / indices.length;
  return indices.map((_, i) => stdout.subarray(i * each, (i + 1) * each));
}

describe('LocalVideoGenerator', () => {
  const generator = new LocalVideoGenerator();

  it('writes an MP4: H.264 yuv420p and a silent AAC track, both lasting the duration asked for', async () => {
    const { video } = await generator.generate(request());
    expect(video.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const probe = await probeMedia(video.bytes);
    const [picture, sound] = probe.streams;
    expect(probe.streams.map((s) => [s.codecType, s.codecName])).toEqual([
      ['video', 'h264'],
      ['audio', 'aac'],
    ]);
    expect(picture).toMatchObject({ width: 360, height: 640, pixelFormat: 'yuv420p' });
    expect(Math.abs(picture.durationSeconds! - 6)).toBeLessThan(0.1);
    expect(Math.abs(sound.durationSeconds! - 6)).toBeLessThan(0.1);
    expect(video).toMatchObject({ contentType: 'video/mp4', durationSeconds: 6, width: 360, height: 640 });
  });

  it.each([
    ['9:16', 360, 640],
    ['1:1', 360, 360],
    ['16:9', 640, 360],
  ] as const)('matches the %s aspect ratio (%ix%i), with a PNG thumbnail of the same size', async (aspectRatio, width, height) => {
    const { video, thumbnail } = await generator.generate(request({ aspectRatio, durationSeconds: 1 }));
    const [stream] = (await probeMedia(video.bytes)).streams;
    expect([stream.width, stream.height, video.width, video.height]).toEqual([width, height, width, height]);
    const thumb = await sharp(thumbnail!.bytes).metadata();
    expect([thumb.format, thumb.width, thumb.height]).toEqual(['png', width, height]);
  });

  it('animates: frames differ', async () => {
    const { video } = await generator.generate(request({ durationSeconds: 2 }));
    const [first, middle] = await framesAt(video.bytes, [0, 15]);
    expect(first.length).toBe(360 * 640 * 3);
    let changed = 0;
    for (let i = 0; i < first.length; i++) if (Math.abs(first[i] - middle[i]) > 24) changed++;
    expect(changed / first.length).toBeGreaterThan(0.01);
  });

  it('is deterministic, and the scene changes the result', async () => {
    const reference = { bytes: await sampleJpeg(), contentType: 'image/jpeg' };
    const short = { referenceImage: reference, durationSeconds: 1, aspectRatio: '1:1' } as const;
    const a = await generator.generate(request(short));
    const b = await generator.generate(request({ ...short, jobId: 'job_other' }));
    const c = await generator.generate(request({ ...short, sceneDescription: 'a night market' }));
    expect(a.video.bytes.equals(b.video.bytes)).toBe(true);
    expect(a.video.bytes.equals(c.video.bytes)).toBe(false);
  });

  it('makes a motion transfer from the character image, keyed on the driving video', async () => {
    const characterImage = { bytes: await sampleJpeg(), contentType: 'image/jpeg' };
    const run = (video: string) =>
      generator.motionTransfer({ jobId: 'j', character: LUNA, characterImage, referenceVideo: { bytes: Buffer.from(video), contentType: 'video/mp4' }, durationSeconds: 2, aspectRatio: '1:1' });
    // One after another: three encoders at once would only share the same two cores.
    const [a, b, c] = [await run('moves-1'), await run('moves-1'), await run('moves-2')];
    expect(a.video.bytes.equals(b.video.bytes)).toBe(true);
    expect(a.video.bytes.equals(c.video.bytes)).toBe(false);
    const [stream] = (await probeMedia(a.video.bytes)).streams;
    expect([stream.codecName, Math.abs(stream.durationSeconds! - 2) < 0.1]).toEqual(['h264', true]);
    expect(a.video).toMatchObject({ contentType: 'video/mp4', durationSeconds: 2 });
  });

  it('stops when aborted, before or during the encoding: upstream_failed, aborted', async () => {
    const early = await rejection(generator.generate(request(), AbortSignal.abort()));
    expect(early.details).toMatchObject({ provider: 'local', reason: 'aborted' });
    // A minute of video takes seconds to render: the abort lands mid-encode.
    const err = await rejection(generator.generate(request({ durationSeconds: 60 }), AbortSignal.timeout(300)));
    expect([err.code, err.details]).toEqual(['upstream_failed', expect.objectContaining({ provider: 'local', reason: 'aborted' })]);
  });
});
