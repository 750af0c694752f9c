import { describe, expect, it, jest } from '@jest/globals';
import sharp from 'sharp';
import { pcm16Wav } from '../../../../../platform/media/audio-type.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { probeMedia, runFfmpeg, withTempDir } from '../../../../../platform/media/ffmpeg.js';
import type { TalkingHeadRequest } from '../../../application/ports/index.js';
import { rejection } from '../spec-fixtures.js';
import { videoSize } from '../shared/video-size.js';
import { LocalTalkingHeadGenerator } from './local-talking-head-generator.js';
import { mouthBox, mouthGeometry, mouthLevels } from './talking-mouth.js';

// Each test encodes real video with ffmpeg: on a busy 2-core machine that can take longer than jest's 5 s default.
jest.setTimeout(30_000);

const RATE = 22_050;

/** A mono 16-bit WAV of `parts`: seconds of silence (amplitude 0) or of a 220 Hz tone at that amplitude. */
function wav(parts: Array<{ seconds: number; amplitude: number }>): Buffer {
  const samples = parts.flatMap(({ seconds, amplitude }) => Array.from({ length: Math.round(seconds * RATE) }, (_, i) => Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 220 * i) / RATE))));
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(s, i * 2));
  return pcm16Wav(data, RATE);
}

/** Speech-like enough for the renderer: 1 s silence, 1 s loud, 1 s silence. */
const QUIET_LOUD_QUIET = wav([
  { seconds: 1, amplitude: 0 },
  { seconds: 1, amplitude: 0.5 },
  { seconds: 1, amplitude: 0 },
]);

/** A face-ish image: skin-coloured, so the dark mouth stands out. */
const face = () => sharp({ create: { width: 300, height: 400, channels: 3, background: { r: 224, g: 178, b: 150 } } }).png().toBuffer();

async function request(over: Partial<TalkingHeadRequest> = {}): Promise<TalkingHeadRequest> {
  return {
    jobId: 'job_th',
    image: { bytes: await face(), contentType: 'image/png' },
    speech: { bytes: QUIET_LOUD_QUIET, contentType: 'audio/wav', durationSeconds: 3 },
    aspectRatio: '9:16',
    ...over,
  };
}

const small = () => new LocalTalkingHeadGenerator({ shortSide: 144, preset: 'ultrafast' });

/** Video frames `indices` of an MP4, decoded to RGB. */
async function framesAt(mp4: Buffer, indices: number[], size: { width: number; height: number }): Promise<Buffer[]> {
  const select = indices.map((n) => `eq(n\\,${n})`).join('+');
  const { stdout } = await runFfmpeg(['-i', 'pipe:0', '-vf', `select=${select}`, '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], { input: mp4 });
  const bytes = size.width * size.height * 3;
  expect(stdout.length).toBe(bytes * indices.length);
  return indices.map((_, i) => stdout.subarray(i * bytes, (i + 1) * bytes));
}

/** Mean brightness of the middle of the mouth: low when open (dark), high when closed (lips, skin). */
function mouthBrightness(frame: Buffer, size: { width: number; height: number }): number {
  const box = mouthBox(mouthGeometry(size.width, size.height));
  const [x0, x1] = [box.left + Math.round(box.width * 0.3), box.left + Math.round(box.width * 0.7)];
  const [y0, y1] = [box.top + Math.round(box.height * 0.3), box.top + Math.round(box.height * 0.7)];
  let sum = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) for (let c = 0; c < 3; c++) sum += frame[(y * size.width + x) * 3 + c];
  return sum / ((x1 - x0) * (y1 - y0) * 3);
}

describe('LocalTalkingHeadGenerator', () => {
  it('renders an MP4 with one H.264 (yuv420p) and one AAC stream that end together', async () => {
    const result = await small().render(await request());
    const probe = await probeMedia(result.video.bytes);
    expect(probe.formatName).toContain('mp4');
    const video = probe.streams.filter((s) => s.codecType === 'video');
    const audio = probe.streams.filter((s) => s.codecType === 'audio');
    expect([video.map((s) => s.codecName), audio.map((s) => s.codecName)]).toEqual([['h264'], ['aac']]);
    expect(video[0]).toMatchObject({ width: 144, height: 256, pixelFormat: 'yuv420p', frameCount: 75 });
    expect(Math.abs(video[0].durationSeconds! - audio[0].durationSeconds!)).toBeLessThan(0.1);
    expect(video[0].durationSeconds).toBeCloseTo(3, 2);
    expect(result).toMatchObject({ durationSeconds: 3, video: { contentType: 'video/mp4', width: 144, height: 256, durationSeconds: 3 } });
    expect(result.video.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it('opens the mouth where the audio is loud, from the first frame of the loud second to its last', async () => {
    const size = { width: 144, height: 256 };
    const { video } = await small().render(await request());
    // Frames of 40 ms: the tone plays in frames 25-49.
    const [at05, before, first, at15, last, after, at25] = (await framesAt(video.bytes, [12, 24, 25, 37, 49, 50, 62], size)).map((f) => mouthBrightness(f, size));
    for (const open of [first, at15, last]) expect(open).toBeLessThan(at05 - 40);
    for (const closed of [before, after, at25]) expect(Math.abs(closed - at05)).toBeLessThan(8);
  });

  it('puts the speech on the sound track in time with the picture', async () => {
    const { video } = await small().render(await request());
    const { stdout } = await runFfmpeg(['-i', 'pipe:0', '-vn', '-ac', '1', '-ar', '48000', '-f', 's16le', 'pipe:1'], { input: video.bytes });
    const samples = stdout.length / 2;
    let onset = -1;
    for (let i = 0; i < samples && onset < 0; i++) if (Math.abs(stdout.readInt16LE(i * 2)) > 3000) onset = i;
    expect(samples / 48_000).toBeCloseTo(3, 1);
    expect(Math.abs(onset / 48_000 - 1)).toBeLessThan(0.02);
  });

  it.each([
    ['9:16', 144, 256],
    ['1:1', 144, 144],
    ['16:9', 256, 144],
  ] as const)('sizes %s as %ix%i, with a JPEG thumbnail of a frame', async (aspectRatio, width, height) => {
    const result = await small().render(await request({ aspectRatio, speech: { bytes: wav([{ seconds: 0.5, amplitude: 0.4 }]), contentType: 'audio/wav', durationSeconds: 0.5 } }));
    const [stream] = (await probeMedia(result.video.bytes)).streams;
    expect([stream.width, stream.height]).toEqual([width, height]);
    const thumb = await sharp(result.thumbnail!.bytes).metadata();
    expect([thumb.format, thumb.width, thumb.height]).toEqual(['jpeg', width, height]);
  });

  it('is 720p at its default size', () => {
    expect(videoSize('9:16', 720)).toEqual({ width: 720, height: 1280 });
    expect(videoSize('1:1', 720)).toEqual({ width: 720, height: 720 });
    expect(videoSize('16:9', 720)).toEqual({ width: 1280, height: 720 });
  });

  it('reports progress by frames written, rising to 100', async () => {
    const seen: number[] = [];
    await small().render(await request(), undefined, (p) => seen.push(p));
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.at(-1)).toBe(100);
    expect(seen.every((p, i) => i === 0 || p > seen[i - 1])).toBe(true);
  });

  it('is deterministic: the same face and speech give the same file', async () => {
    const req = await request({ aspectRatio: '1:1' });
    const [a, b] = [await small().render(req), await small().render(req)];
    expect(a.video.bytes.equals(b.video.bytes)).toBe(true);
  });

  it('takes MP3 speech as well as WAV', async () => {
    const { stdout: mp3 } = await runFfmpeg(['-i', 'pipe:0', '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3', 'pipe:1'], { input: QUIET_LOUD_QUIET });
    const result = await small().render(await request({ speech: { bytes: mp3, contentType: 'audio/mpeg', durationSeconds: 3 } }));
    expect(result.durationSeconds).toBeGreaterThanOrEqual(3);
    expect(result.durationSeconds).toBeLessThan(3.2);
  });

  it('stops when aborted mid-render: upstream_failed, aborted', async () => {
    const controller = new AbortController();
    const render = small().render(await request(), controller.signal, (p) => p > 10 && controller.abort());
    const err = await rejection(render);
    expect([err.code, err.details]).toEqual(['upstream_failed', expect.objectContaining({ provider: 'local', reason: 'aborted' })]);
  });

  it('gives up past its time budget: upstream_failed, timeout', async () => {
    const err = await rejection(new LocalTalkingHeadGenerator({ shortSide: 144, timeoutMs: 1 }).render(await request()));
    expect(err.details).toMatchObject({ provider: 'local', reason: 'timeout' });
  });

  it('refuses speech that is a playlist of a file on the server, instead of rendering that file', async () => {
    await withTempDir(async (dir) => {
      const serverFile = join(dir, 'server-file.wav');
      await writeFile(serverFile, QUIET_LOUD_QUIET);
      const playlist = Buffer.from(`#EXTM3U\n#EXT-X-TARGETDURATION:3\n#EXTINF:3,\n${serverFile}\n#EXT-X-ENDLIST\n`);
      const err = await rejection(small().render(await request({ speech: { bytes: playlist, contentType: 'audio/wav', durationSeconds: 3 } })));
      expect([err.code, err.details]).toEqual(['upstream_failed', expect.objectContaining({ provider: 'local', reason: 'bad_input' })]);
    });
  });

  it.each([
    ['speech that is not audio', { speech: { bytes: Buffer.from('not audio at all, just words'), contentType: 'audio/wav', durationSeconds: 1 } }],
    ['an image that is not an image', { image: { bytes: Buffer.from('not an image'), contentType: 'image/png' } }],
  ])('refuses %s: upstream_failed, bad_input', async (_, over) => {
    const err = await rejection(small().render(await request(over)));
    expect([err.code, err.details]).toEqual(['upstream_failed', expect.objectContaining({ provider: 'local', reason: 'bad_input' })]);
  });
});

describe('mouthLevels', () => {
  const pcm = (values: number[], each: number) => Int16Array.from(values.flatMap((v) => Array.from({ length: each }, (_, i) => (i % 2 ? v : -v))));

  it('keeps the mouth shut in silence and under the noise floor, and opens it fully at the loudest frame', () => {
    expect(Array.from(mouthLevels(pcm([0, 200, 16000, 4000], 100), 100, 4))).toEqual([0, 0, 1, 0.5]);
  });

  it('reads only each frame’s own window, padding a short last one with silence', () => {
    const levels = mouthLevels(pcm([0, 16000, 16000], 100).subarray(0, 250), 100, 3);
    expect([levels[0], levels[1]]).toEqual([0, 1]);
    expect(levels[2]).toBeGreaterThan(0);
    expect(levels[2]).toBeLessThan(1);
  });

  it('does not boost a quiet recording to a wide-open mouth', () => {
    expect(mouthLevels(pcm([350], 100), 100, 1)[0]).toBeLessThan(0.5);
  });
});
