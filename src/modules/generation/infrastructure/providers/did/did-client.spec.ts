import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeDid, type FakeDid } from '../../../../../../test/fakes/did-server.js';
import { recordedSleep, rejection } from '../spec-fixtures.js';
import { DidClient, type DidOptions, type TalkStatus, type UploadFile } from './did-client.js';

let fake: FakeDid;

beforeAll(async () => {
  fake = await startFakeDid({ pollsPerStep: 2 });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.setMode({ kind: 'ok' });
  fake.options.pollsPerStep = 2;
  fake.options.delayMs = 0;
});

const image: UploadFile = { bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]), contentType: 'image/jpeg', filename: 'face.jpg' };
const audio: UploadFile = { bytes: Buffer.from('RIFF....WAVEfmt speech'), contentType: 'audio/wav', filename: 'speech.wav' };

function client(over: Partial<DidOptions> = {}): DidClient {
  const retry = recordedSleep();
  return new DidClient({ baseUrl: fake.url, apiKey: fake.apiKey, timeoutMs: 10_000, maxDownloadBytes: 1024 * 1024, pollIntervalMs: 5, retry: { sleep: retry.sleep }, ...over });
}

describe('DidClient', () => {
  it('uploads the image and the audio, makes a talk from their URLs, polls it to done and downloads the result', async () => {
    const { talk, video } = await client().talk(image, audio);
    expect(talk.status).toBe('done');
    expect(video.equals(fake.resultVideo)).toBe(true);
    expect(fake.images.map((u) => [u.filename, u.contentType, u.bytes.equals(image.bytes)])).toEqual([['face.jpg', 'image/jpeg', true]]);
    expect(fake.audios.map((u) => [u.filename, u.contentType, u.bytes.equals(audio.bytes)])).toEqual([['speech.wav', 'audio/wav', true]]);
    const [create] = fake.requestsTo('/talks', 'POST');
    expect(create.body).toEqual({ source_url: fake.images[0].url, script: { type: 'audio', audio_url: fake.audios[0].url }, config: { stitch: true, result_format: 'mp4' } });
    // Two polls in created, two in started, then done.
    expect(fake.requestsTo(`/talks/${talk.id}`, 'GET')).toHaveLength(5);
  });

  it('sends the key verbatim as Basic auth to the API, and no credentials to the pre-signed result URL', async () => {
    await client().talk(image, audio);
    const api = fake.requests.filter((r) => !r.path.startsWith('/results/'));
    expect(api.length).toBeGreaterThan(3);
    expect(api.every((r) => r.authorization === `Basic ${fake.apiKey}`)).toBe(true);
    const [download] = fake.requestsTo('/results/', 'GET');
    expect(download.authorization).toBeUndefined();
  });

  it('reports each status as it is seen, with the polls spent in it', async () => {
    const seen: Array<[TalkStatus, number]> = [];
    await client().talk(image, audio, undefined, (talk, polls) => seen.push([talk.status, polls]));
    expect(seen).toEqual([
      ['created', 0],
      ['created', 1],
      ['created', 2],
      ['started', 0],
      ['started', 1],
      ['done', 0],
    ]);
  });

  it('backs off between polls, up to the ceiling', async () => {
    const waits = recordedSleep();
    fake.options.pollsPerStep = 4;
    await client({ pollIntervalMs: 100, maxPollIntervalMs: 300, sleep: waits.sleep }).talk(image, audio);
    expect(waits.delays).toEqual([100, 150, 225, 300, 300, 300, 300, 300, 300]);
  });

  it.each([
    ['error', 'talk_failed', 'FaceError'],
    ['rejected', 'talk_rejected', 'ModerationError'],
  ] as const)('fails a talk that ends %s: upstream_failed %s with D-ID’s reason, and downloads nothing', async (kind, reason, errorKind) => {
    fake.setMode({ kind, description: 'no face found in the image' });
    const err = await rejection(client().talk(image, audio));
    expect(err.code).toBe('upstream_failed');
    expect(err.details).toMatchObject({ provider: 'd-id', reason, kind: errorKind, talk_id: expect.stringMatching(/^tlk_/) });
    expect(err.message).toContain('no face found in the image');
    expect(fake.requestsTo('/results/')).toHaveLength(0);
  });

  it('retries a 5xx and honours a 429’s Retry-After, then carries on', async () => {
    const retry = recordedSleep();
    fake.setMode({ kind: 'http_error', status: 429, times: 1, retryAfter: 3, path: '/talks' });
    const { talk } = await client({ retry: { sleep: retry.sleep } }).talk(image, audio);
    expect(talk.status).toBe('done');
    expect(retry.delays).toEqual([3000]);
    fake.setMode({ kind: 'http_error', status: 503, times: 1, path: '/audios' });
    expect((await client().talk(image, audio)).talk.status).toBe('done');
    expect(fake.requestsTo('/audios', 'POST')).toHaveLength(3);
  });

  it('gives up on an error that does not pass: http_error with the status and D-ID’s words', async () => {
    const err = await rejection(client({ apiKey: 'wrong:key' }).talk(image, audio));
    expect(err.details).toMatchObject({ provider: 'd-id', reason: 'http_error', status: 401, attempts: 1 });
    expect(err.message).toContain('AuthorizationError');
    fake.setMode({ kind: 'http_error', status: 500, times: 10, path: '/talks' });
    const persistent = await rejection(client({ retry: { retries: 2, sleep: recordedSleep().sleep } }).talk(image, audio));
    expect(persistent.details).toMatchObject({ reason: 'http_error', status: 500, attempts: 3 });
  });

  it('stops waiting at its deadline, since D-ID cannot cancel a talk: timeout, with the talk id', async () => {
    fake.setMode({ kind: 'hang' });
    const err = await rejection(client({ timeoutMs: 300 }).talk(image, audio));
    expect(err.details).toMatchObject({ provider: 'd-id', reason: 'timeout', talk_id: expect.stringMatching(/^tlk_/) });
  });

  it('stops when the caller aborts: aborted', async () => {
    fake.setMode({ kind: 'hang' });
    const controller = new AbortController();
    const err = await rejection(client().talk(image, audio, controller.signal, (talk) => talk.status === 'started' && controller.abort()));
    expect(err.details).toMatchObject({ provider: 'd-id', reason: 'aborted' });
  });

  it('refuses a result larger than the cap: too_large', async () => {
    fake.setMode({ kind: 'oversized', bytes: 3 * 1024 * 1024 });
    const err = await rejection(client({ maxDownloadBytes: 1024 * 1024 }).talk(image, audio));
    expect(err.details).toMatchObject({ provider: 'd-id', reason: 'too_large' });
  });

  it('calls nothing without an API key: not_configured', async () => {
    const err = await rejection(client({ apiKey: undefined }).talk(image, audio));
    expect(err.details).toMatchObject({ provider: 'd-id', reason: 'not_configured' });
    expect(fake.requests).toHaveLength(0);
  });
});
