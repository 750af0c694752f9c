import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jsonBody, to, withRequestBug } from '../../../../../test/fakes/adapter-bugs.js';
import { startFakeDid, type FakeDid } from '../../../../../test/fakes/did-server.js';
import { startFakeElevenLabs, type FakeElevenLabs } from '../../../../../test/fakes/elevenlabs-server.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../../../../test/fakes/openai-server.js';
import { startFakeReplicate, type FakeReplicate } from '../../../../../test/fakes/replicate-server.js';
import { startFakeS3, type FakeS3 } from '../../../../../test/fakes/s3-server.js';
import { S3Storage } from '../../../../platform/storage/s3-storage.js';
import type { ImageRequest } from '../../application/ports/index.js';
import { DidClient } from './did/did-client.js';
import { ElevenLabsClient } from './elevenlabs/elevenlabs-client.js';
import { ELEVENLABS_DEFAULTS, ElevenLabsSpeechGenerator } from './elevenlabs/elevenlabs-speech-generator.js';
import { OpenAiTextGenerator } from './openai/openai-text-generator.js';
import { ReplicateClient } from './replicate/replicate-client.js';
import { ReplicateImageGenerator } from './replicate/replicate-image-generator.js';
import { LUNA, recordedSleep, rejection, sampleJpeg } from './spec-fixtures.js';

/**
 * The provider fakes refuse what the providers refuse, so an adapter bug cannot stay green: each
 * case runs a real adapter with one thing wrong (a model the provider does not have, a request
 * rewritten on its way out by test/fakes/adapter-bugs.ts) and expects the fake to refuse it; the
 * same adapter done right succeeds against the same fake.
 */
const retry = { retries: 0, sleep: recordedSleep().sleep };

describe('Replicate fake', () => {
  let fake: FakeReplicate;
  beforeAll(async () => {
    fake = await startFakeReplicate({ token: 'r8_t' });
  });
  afterAll(() => fake.close());
  const loras = { 'flux-dev': 'black-forest-labs/flux-dev-lora', sdxl: 'stability-ai/sdxl:39ed52f2a78e934b3ba6e2a89f5b1c712de7dfea535525255b1aa35c5565e08b' } as const;
  const generator = (model: string) => new ReplicateImageGenerator(new ReplicateClient({ baseUrl: fake.url, token: 'r8_t', timeoutMs: 5_000, maxDownloadBytes: 1 << 20, pollIntervalMs: 5, retry }), model, loras);
  const request: ImageRequest = { jobId: 'job_1', workspaceId: 'ws_1', character: LUNA, prompt: 'tomatoes', width: 1024, height: 1024, count: 1 };

  it('runs a model it knows with the inputs its schema declares', async () => {
    await expect(generator('black-forest-labs/flux-dev').generate(request)).resolves.toHaveLength(1);
    await expect(generator(loras.sdxl).generate(request)).resolves.toHaveLength(1);
  });

  it('refuses an unknown model, an empty or unknown version and an input property the model does not declare', async () => {
    expect((await rejection(generator('nobody/no-such-model').generate(request))).message).toContain('404');
    const versioned = to('/v1/predictions', 'POST');
    const emptied = await rejection(withRequestBug(versioned, jsonBody((b) => (b.version = '')), () => generator(loras.sdxl).generate(request)));
    expect(emptied.message).toContain('- version: is required');
    const unknownVersion = await rejection(generator(`stability-ai/sdxl:${'0'.repeat(64)}`).generate(request));
    expect(unknownVersion.message).toContain('Invalid version');
    const byName = to('/black-forest-labs/flux-dev/predictions', 'POST');
    const extra = await rejection(withRequestBug(byName, jsonBody((b) => (b.input.negative_prompt = 'blurry')), () => generator('black-forest-labs/flux-dev').generate(request)));
    expect(extra.message).toContain('Additional property negative_prompt is not allowed');
  });
});

describe('OpenAI fake', () => {
  let fake: FakeOpenAi;
  beforeAll(async () => {
    fake = await startFakeOpenAi({ apiKey: 'sk-t' });
  });
  afterAll(() => fake.close());
  const generator = (model: string) => new OpenAiTextGenerator({ baseUrl: fake.url, apiKey: 'sk-t', model, timeoutMs: 5_000, retry });
  const caption = { character: LUNA, prompt: 'first tomatoes', platform: 'instagram', contentType: 'single', language: 'en' } as const;

  it('answers a model OpenAI serves and refuses one it does not (404 model_not_found)', async () => {
    await expect(generator('gpt-4o-mini').caption(caption)).resolves.toMatchObject({ caption: expect.any(String) });
    await expect(generator('gpt-4o-mini-2024-07-18').caption(caption)).resolves.toMatchObject({ caption: expect.any(String) });
    const refused = await rejection(generator('gpt-4o-mega').caption(caption));
    expect(refused.message).toMatch(/404|model_not_found|does not exist/);
  });

  it('refuses a message role OpenAI does not have, and JSON mode without the word JSON in the messages', async () => {
    const reply = { character: LUNA, platform: 'instagram', channel: 'comment' as const, maxLength: 280, thread: [{ from: 'character' as const, text: 'Hi!' }, { from: 'audience' as const, text: 'Hello' }] };
    await expect(generator('gpt-4o-mini').reply(reply)).resolves.toMatchObject({ text: expect.any(String) });
    const chat = to('/v1/chat/completions', 'POST');
    const renamed = await rejection(withRequestBug(chat, jsonBody((b) => (b.messages[1].role = 'character')), () => generator('gpt-4o-mini').reply(reply)));
    expect(renamed.message).toContain("Invalid value: 'character'");
    const unsaid = await rejection(withRequestBug(chat, jsonBody((b) => (b.messages = b.messages.filter((m: { role: string }) => m.role !== 'system'))), () => generator('gpt-4o-mini').caption(caption)));
    expect(unsaid.message).toContain("must contain the word 'json'");
  });
});

describe('ElevenLabs fake', () => {
  let fake: FakeElevenLabs;
  beforeAll(async () => {
    fake = await startFakeElevenLabs();
  });
  afterAll(() => fake.close());
  const generator = () => new ElevenLabsSpeechGenerator(new ElevenLabsClient({ baseUrl: fake.url, apiKey: fake.apiKey, concurrency: 2, timeoutMs: 10_000, retry }), { defaultModelId: 'eleven_multilingual_v2' });
  const speech = (modelId: string) => ({ text: 'Good morning.', voiceId: ELEVENLABS_DEFAULTS.voiceId, settings: { stability: 0.5, similarityBoost: 0.75, style: 0, useSpeakerBoost: true, modelId }, format: 'mp3' as const });

  it('speaks with a text-to-speech model and refuses a model_id it does not have', async () => {
    await expect(generator().speak(speech('eleven_turbo_v2_5'))).resolves.toMatchObject({ contentType: expect.stringMatching(/^audio\//) });
    await rejection(generator().speak(speech('eleven_made_up_v9')));
    expect(fake.requestsTo('/v1/text-to-speech/').at(-1)?.status).toBe(400);
  });
});

describe('D-ID fake', () => {
  let fake: FakeDid;
  beforeAll(async () => {
    fake = await startFakeDid({ pollsPerStep: 1 });
  });
  afterAll(() => fake.close());
  const client = () => new DidClient({ baseUrl: fake.url, apiKey: fake.apiKey, timeoutMs: 10_000, maxDownloadBytes: 1 << 20, pollIntervalMs: 5, retry });
  const audio = { bytes: Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt speech'), contentType: 'audio/wav', filename: 'speech.wav' };

  it('takes a JPEG and a WAV, and refuses an image type D-ID does not take or bytes that are not what they claim', async () => {
    const jpeg = await sampleJpeg();
    await expect(client().talk({ bytes: jpeg, contentType: 'image/jpeg', filename: 'face.jpg' }, audio)).resolves.toBeDefined();
    const webp = await rejection(client().talk({ bytes: jpeg, contentType: 'image/webp', filename: 'face.webp' }, audio));
    expect(webp.message).toContain('400');
    const lying = await rejection(client().talk({ bytes: jpeg, contentType: 'image/png', filename: 'face.png' }, audio));
    expect(lying.message).toContain('400');
    await rejection(client().talk({ bytes: jpeg, contentType: 'image/jpeg', filename: 'face.jpg' }, { ...audio, contentType: 'text/plain' }));
    expect(fake.audios.filter((a) => a.contentType === 'text/plain')).toHaveLength(0);
  });
});

describe('S3 fake', () => {
  let s3: FakeS3;
  beforeAll(async () => {
    s3 = await startFakeS3();
  });
  afterAll(() => s3.close());
  const storage = (fetchFn: typeof fetch = fetch) =>
    new S3Storage({ endpoint: s3.url, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, publicUrl: 'http://api.test' }, fetchFn);

  it('stores a correctly signed PUT and refuses one whose signed header or body changed on the way', async () => {
    await expect(storage().put('a/ok.png', Buffer.from('png'), 'image/png')).resolves.toMatchObject({ key: 'a/ok.png' });
    const dropHash: typeof fetch = (url, init) => {
      const headers = new Headers(init?.headers);
      headers.delete('x-amz-content-sha256');
      return fetch(url, { ...init, headers });
    };
    await expect(storage(dropHash).put('a/no-hash.png', Buffer.from('png'), 'image/png')).rejects.toThrow(/403/);
    const swapBody: typeof fetch = (url, init) => fetch(url, { ...init, body: new TextEncoder().encode('gif') });
    await expect(storage(swapBody).put('a/swapped.png', Buffer.from('png'), 'image/png')).rejects.toThrow(/403 XAmzContentSHA256Mismatch/);
    expect([...s3.objects.keys()]).toEqual(['a/ok.png']);
  });
});
