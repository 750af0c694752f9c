import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { startFakeReplicate, type FakeReplicate } from '../../../../../../test/fakes/replicate-server.js';
import { LUNA, rejection, sampleJpeg } from '../spec-fixtures.js';
import { ReplicateClient } from './replicate-client.js';
import { ReplicateVideoGenerator } from './replicate-video-generator.js';

const TOKEN = 'r8_video';
let fake: FakeReplicate;

beforeAll(async () => {
  fake = await startFakeReplicate({ token: TOKEN });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.setMode({ kind: 'ok' });
});

function generator(inlineFileLimitBytes?: number): ReplicateVideoGenerator {
  const client = new ReplicateClient({ baseUrl: fake.url, token: TOKEN, timeoutMs: 5_000, maxDownloadBytes: 1024 * 1024, pollIntervalMs: 5, inlineFileLimitBytes });
  return new ReplicateVideoGenerator(client, 'minimax/video-01', 'kwaivgi/kling-v1.6-pro');
}

describe('ReplicateVideoGenerator', () => {
  it('makes a scene video from the prompt, duration, aspect ratio and first frame', async () => {
    const result = await generator().generate({
      jobId: 'job_1',
      character: LUNA,
      sceneDescription: 'Luna waters her balcony garden',
      durationSeconds: 6,
      aspectRatio: '9:16',
      referenceImage: { bytes: await sampleJpeg(), contentType: 'image/jpeg' },
    });
    const [create] = fake.requestsTo('/v1/models/minimax/video-01/predictions', 'POST');
    expect(create.body.input).toMatchObject({ duration: 6, aspect_ratio: '9:16' });
    expect(create.body.input.prompt).toContain('Luna waters her balcony garden');
    expect(create.body.input.first_frame_image).toMatch(/^data:image\/jpeg;base64,/);
    expect(result.video).toMatchObject({ contentType: 'image/gif', durationSeconds: 6 });
    expect((await sharp(result.video.bytes, { animated: true }).metadata()).pages).toBeGreaterThan(1);
    const thumb = await sharp(result.thumbnail!.bytes).metadata();
    expect(thumb.format).toBe('png');
    expect(thumb.height > thumb.width).toBe(true);
  });

  it('sends motion transfer the character image inline and a large driving video through the Files API', async () => {
    const drivingVideo = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(4096, 1)]);
    const result = await generator(1024).motionTransfer({
      jobId: 'job_2',
      character: LUNA,
      characterImage: { bytes: await sampleJpeg(), contentType: 'image/jpeg' },
      referenceVideo: { bytes: drivingVideo, contentType: 'video/mp4' },
      durationSeconds: 10,
      aspectRatio: '1:1',
    });
    const [upload] = fake.requestsTo('/v1/files', 'POST');
    expect(upload.authorization).toBe(`Bearer ${TOKEN}`);
    const [stored] = [...fake.uploads.values()];
    expect(stored).toEqual({ bytes: drivingVideo, contentType: 'video/mp4' });
    const [create] = fake.requestsTo('/v1/models/kwaivgi/kling-v1.6-pro/predictions', 'POST');
    expect(create.body.input.video).toBe(`${fake.url}/v1/files/${[...fake.uploads.keys()][0]}`);
    expect(create.body.input.image).toMatch(/^data:image\/jpeg;base64,/);
    expect(create.body.input).toMatchObject({ duration: 10, aspect_ratio: '1:1' });
    expect(result.video.durationSeconds).toBe(10);
  });

  it('inlines a small driving video as a data URI', async () => {
    const small = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(64)]);
    await generator().motionTransfer({
      jobId: 'job_3',
      character: LUNA,
      characterImage: { bytes: await sampleJpeg(), contentType: 'image/jpeg' },
      referenceVideo: { bytes: small, contentType: 'video/mp4' },
      durationSeconds: 5,
      aspectRatio: '16:9',
    });
    expect(fake.requestsTo('/v1/files')).toHaveLength(0);
    expect(fake.requestsTo('/predictions', 'POST')[0].body.input.video).toBe(`data:video/mp4;base64,${small.toString('base64')}`);
  });

  it('calls an output that is not a video a bad response', async () => {
    fake.setMode({ kind: 'bad_file' });
    const err = await rejection(generator().generate({ jobId: 'j', character: LUNA, sceneDescription: 'x', durationSeconds: 5, aspectRatio: '1:1' }));
    expect(err.details).toMatchObject({ provider: 'replicate', reason: 'bad_response' });
  });
});
