import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { startFakeDid, type FakeDid } from '../../../../../../test/fakes/did-server.js';
import { AppError } from '../../../../../core/index.js';
import { runFfmpeg } from '../../../../../platform/media/index.js';
import type { TalkingHeadRequest } from '../../../application/ports/index.js';
import { rejection, sampleJpeg } from '../spec-fixtures.js';
import { DidClient } from './did-client.js';
import { DidTalkingHeadGenerator, talkPercent } from './did-talking-head-generator.js';

let fake: FakeDid;

beforeAll(async () => {
  fake = await startFakeDid({ pollsPerStep: 1 });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.images.length = 0;
  fake.audios.length = 0;
  fake.setMode({ kind: 'ok' });
});

const SPEECH = Buffer.from('ID3 pretend mp3 bytes of speech');

function generator(): DidTalkingHeadGenerator {
  const client = new DidClient({ baseUrl: fake.url, apiKey: fake.apiKey, timeoutMs: 10_000, maxDownloadBytes: 4 * 1024 * 1024, pollIntervalMs: 5 });
  return new DidTalkingHeadGenerator(client, { shortSide: 144 });
}

async function request(over: Partial<TalkingHeadRequest> = {}): Promise<TalkingHeadRequest> {
  return {
    jobId: 'job_did',
    image: { bytes: await sampleJpeg(300, 300), contentType: 'image/jpeg' },
    speech: { bytes: SPEECH, contentType: 'audio/mpeg', durationSeconds: 2 },
    aspectRatio: '9:16',
    ...over,
  };
}

describe('DidTalkingHeadGenerator', () => {
  it('completes through D-ID’s status progression: the talk’s MP4, its duration, and its first frame as the thumbnail', async () => {
    const result = await generator().render(await request());
    expect(result.video.bytes.equals(fake.resultVideo)).toBe(true);
    expect(result.video).toMatchObject({ contentType: 'video/mp4', width: 160, height: 160 });
    expect(result.durationSeconds).toBeCloseTo(1, 1);
    expect(result.video.durationSeconds).toBe(result.durationSeconds);
    const thumb = await sharp(result.thumbnail!.bytes).metadata();
    expect([thumb.format, thumb.width, thumb.height]).toEqual(['jpeg', 160, 160]);
    const [talk] = [...fake.talks.values()].slice(-1);
    expect(talk.status).toBe('done');
  });

  it('sends the image cropped to the aspect ratio as JPEG, and the speech as it is', async () => {
    await generator().render(await request({ aspectRatio: '16:9' }));
    const [image] = fake.images;
    const meta = await sharp(image.bytes).metadata();
    expect([image.contentType, image.filename, meta.format, meta.width, meta.height]).toEqual(['image/jpeg', 'face.jpg', 'jpeg', 256, 144]);
    const [audio] = fake.audios;
    expect([audio.contentType, audio.filename, audio.bytes.equals(SPEECH)]).toEqual(['audio/mpeg', 'speech.mp3', true]);
  });

  it('reports progress from the statuses, rising to 100', async () => {
    const seen: number[] = [];
    await generator().render(await request(), undefined, (p) => seen.push(p));
    expect(seen[0]).toBe(5);
    expect(seen).toContain(15);
    expect(seen.some((p) => p >= 20 && p < 90)).toBe(true);
    expect(seen.at(-1)).toBe(100);
    expect(seen.every((p, i) => i === 0 || p >= seen[i - 1])).toBe(true);
  });

  it('creeps towards 85 while D-ID works, never past it', () => {
    const started = (polls: number) => talkPercent({ id: 't', status: 'started' }, polls);
    expect(started(0)).toBe(20);
    expect(started(5)).toBeGreaterThan(started(1));
    expect(started(500)).toBe(85);
  });

  it('refuses a result that is not an MP4: bad_response', async () => {
    fake.setMode({ kind: 'bad_result' });
    const err = await rejection(generator().render(await request()));
    expect(err.details).toMatchObject({ provider: 'd-id', reason: 'bad_response', talk_id: expect.stringMatching(/^tlk_/) });
  });

  it('refuses a result that only starts like an MP4 (an ftyp box in front of an MPEG-TS stream): ffmpeg is not left to guess the container', async () => {
    // Sniffed as MP4 by its `ftyp` box; left to probe, ffmpeg decodes the MPEG-TS stream behind it.
    const ts = (await runFfmpeg(['-f', 'lavfi', '-i', 'color=c=red:s=32x32:d=2', '-c:v', 'mpeg1video', '-f', 'mpegts', 'pipe:1'])).stdout;
    const disguised = Buffer.concat([Buffer.from([0, 0, 0, 12]), Buffer.from('ftypjp2 ', 'latin1'), ts]);
    fake.setMode({ kind: 'result', bytes: disguised });
    const outcome = await generator()
      .render(await request())
      .then(
        (r) => `decoded a ${r.thumbnail?.width}x${r.thumbnail?.height} first frame from another container`,
        (err: unknown) => err,
      );
    expect(outcome).toBeInstanceOf(AppError);
    expect((outcome as AppError).details).toMatchObject({ provider: 'd-id', reason: 'bad_response', talk_id: expect.stringMatching(/^tlk_/) });
  });

  it('passes D-ID’s failure on: talk_failed', async () => {
    fake.setMode({ kind: 'error', description: 'audio could not be processed' });
    const err = await rejection(generator().render(await request()));
    expect([err.code, err.details]).toEqual(['upstream_failed', expect.objectContaining({ provider: 'd-id', reason: 'talk_failed' })]);
  });

  it('refuses an image it cannot decode before calling D-ID: bad_input', async () => {
    const err = await rejection(generator().render(await request({ image: { bytes: Buffer.from('nope'), contentType: 'image/png' } })));
    expect(err.details).toMatchObject({ provider: 'd-id', reason: 'bad_input' });
    expect(fake.requests).toHaveLength(0);
  });
});
