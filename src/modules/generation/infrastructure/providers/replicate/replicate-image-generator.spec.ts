import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { startFakeReplicate, type FakeReplicate } from '../../../../../../test/fakes/replicate-server.js';
import { AppError } from '../../../../../core/index.js';
import type { ImageRequest } from '../../../application/ports/index.js';
import { LUNA, recordedSleep, rejection, sampleJpeg } from '../spec-fixtures.js';
import { ReplicateClient, type ReplicateOptions } from './replicate-client.js';
import { ReplicateImageGenerator } from './replicate-image-generator.js';

const TOKEN = 'r8_test_token';
const MODEL = 'black-forest-labs/flux-dev';
const LORA_MODELS = { 'flux-dev': 'black-forest-labs/flux-dev-lora', sdxl: 'stability-ai/sdxl:39ed52f2a78e934b3ba6e2a89f5b1c712de7dfea535525255b1aa35c5565e08b' };
const WEIGHTS = 'https://replicate.delivery/xezq/abc/trained_model.tar';
let fake: FakeReplicate;
let retry: ReturnType<typeof recordedSleep>;

beforeAll(async () => {
  fake = await startFakeReplicate({ token: TOKEN });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.setMode({ kind: 'ok' });
  fake.options.honourWait = true;
  fake.options.pollsToFinish = 2;
  retry = recordedSleep();
});

function generator(overrides: Partial<ReplicateOptions> = {}): ReplicateImageGenerator {
  const client = new ReplicateClient({
    baseUrl: fake.url,
    token: TOKEN,
    timeoutMs: 5_000,
    maxDownloadBytes: 1024 * 1024,
    pollIntervalMs: 5,
    retry: { retries: 2, sleep: retry.sleep },
    ...overrides,
  });
  return new ReplicateImageGenerator(client, MODEL, LORA_MODELS);
}

const request = (over: Partial<ImageRequest> = {}): ImageRequest => ({
  jobId: 'job_01HZX6FQJ5N6E7T2M3A4B5C6D7',
  workspaceId: 'ws_01HZX6FQJ5N6E7T2M3A4B5C6D7',
  character: LUNA,
  prompt: 'tomatoes on a balcony at golden hour',
  width: 1024,
  height: 1024,
  count: 2,
  seed: 42,
  ...over,
});

const creates = () => fake.requestsTo(`/v1/models/${MODEL}/predictions`, 'POST');

describe('ReplicateImageGenerator', () => {
  it('creates a prediction in sync mode and downloads every output', async () => {
    const images = await generator().generate(request({ negativePrompt: 'blurry' }));
    expect(images).toHaveLength(2);
    for (const image of images) {
      expect(image.contentType).toBe('image/png');
      const meta = await sharp(image.bytes).metadata();
      expect(meta.format).toBe('png');
      expect(meta.width).toBe(meta.height);
    }
    const [create] = creates();
    expect(create.authorization).toBe(`Bearer ${TOKEN}`);
    // Sync mode waits no longer than the 5 s budget allows, so the answer (and its id) comes back in time.
    expect(create.prefer).toBe('wait=3');
    expect(create.cancelAfter).toBe('5s');
    // flux-dev declares no negative prompt: Replicate would refuse the property, so it is left out.
    expect(create.body.input).toEqual({
      prompt: 'tomatoes on a balcony at golden hour, sunlit film, soft focus',
      num_outputs: 2,
      aspect_ratio: '1:1',
      output_format: 'png',
      seed: 42,
    });
    expect(fake.requestsTo('/v1/predictions/', 'GET')).toHaveLength(0);
  });

  it('waits up to 60 s in sync mode when the budget allows', async () => {
    await generator({ timeoutMs: 300_000 }).generate(request({ count: 1 }));
    expect(creates()[0]).toMatchObject({ prefer: 'wait=60', cancelAfter: '300s' });
  });

  it('runs a pinned model version through the generic endpoint', async () => {
    const client = new ReplicateClient({ baseUrl: fake.url, token: TOKEN, timeoutMs: 5_000, maxDownloadBytes: 1024 * 1024 });
    await new ReplicateImageGenerator(client, LORA_MODELS.sdxl, LORA_MODELS).generate(request({ count: 1, negativePrompt: 'blurry' }));
    const [create] = fake.requestsTo('/v1/predictions', 'POST');
    expect(create.path).toBe('/v1/predictions');
    expect(create.body.version).toBe(LORA_MODELS.sdxl);
    // cog-sdxl's own inputs: a free size and a negative prompt, no aspect_ratio or output_format.
    expect(create.body.input).toMatchObject({ width: 1024, height: 1024, negative_prompt: 'blurry' });
    expect(Object.keys(create.body.input)).not.toEqual(expect.arrayContaining(['aspect_ratio']));
    expect(create.body.input.output_format).toBeUndefined();
  });

  it('polls a prediction that is still running until it succeeds', async () => {
    fake.options.honourWait = false;
    fake.options.pollsToFinish = 3;
    const images = await generator().generate(request({ count: 1 }));
    expect(images).toHaveLength(1);
    expect(fake.requestsTo('/v1/predictions/fakepred', 'GET')).toHaveLength(3);
  });

  it('sends a size that is no named aspect ratio to flux-dev as the nearest named ratio (it takes no free size)', async () => {
    await generator().generate(request({ width: 1000, height: 700, count: 1 }));
    const input = creates()[0].body.input;
    expect(input.aspect_ratio).toBe('3:2');
    expect(input.width).toBeUndefined();
    expect(input.height).toBeUndefined();
  });

  it('passes the init image as a data URI with the prompt strength', async () => {
    await generator().generate(request({ count: 1, initImage: { bytes: await sampleJpeg(), contentType: 'image/jpeg' }, strength: 0.55 }));
    const input = creates()[0].body.input;
    expect(input.image).toMatch(/^data:image\/jpeg;base64,[A-Za-z0-9+/]+=*$/);
    expect(input.prompt_strength).toBe(0.55);
    const sent = await sharp(Buffer.from(input.image.split(',')[1], 'base64')).metadata();
    expect([sent.width, sent.height]).toEqual([1024, 1024]);
  });

  it('runs more than four images as several predictions with distinct seeds', async () => {
    const images = await generator().generate(request({ count: 6 }));
    expect(images).toHaveLength(6);
    expect(creates().map((r) => [r.body.input.num_outputs, r.body.input.seed])).toEqual([
      [4, 42],
      [2, 46],
    ]);
  });

  it('reports a failed prediction with the provider error', async () => {
    fake.setMode({ kind: 'fail', error: 'CUDA out of memory' });
    const err = await rejection(generator().generate(request()));
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('upstream_failed');
    expect(err.message).toContain('CUDA out of memory');
    expect(err.details).toMatchObject({ provider: 'replicate', reason: 'prediction_failed', error: 'CUDA out of memory' });
  });

  it('retries a create answered 500 twice, then succeeds', async () => {
    fake.setMode({ kind: 'http_error', status: 500, times: 2 });
    const images = await generator().generate(request({ count: 1 }));
    expect(images).toHaveLength(1);
    expect(creates()).toHaveLength(3);
    expect(retry.delays).toHaveLength(2);
  });

  it('gives up after its retries with the status', async () => {
    fake.setMode({ kind: 'http_error', status: 503, times: 5 });
    const err = await rejection(generator().generate(request({ count: 1 })));
    expect(err.details).toMatchObject({ provider: 'replicate', reason: 'http_error', status: 503 });
    expect(creates()).toHaveLength(3);
  });

  it('waits what Retry-After asks on a 429', async () => {
    fake.setMode({ kind: 'http_error', status: 429, times: 1, retryAfter: 7 });
    await generator().generate(request({ count: 1 }));
    expect(retry.delays).toEqual([7_000]);
    expect(creates()).toHaveLength(2);
  });

  it('does not retry a 401', async () => {
    const err = await rejection(generator({ token: 'wrong' }).generate(request()));
    expect(err.details).toMatchObject({ reason: 'http_error', status: 401 });
    expect(creates()).toHaveLength(1);
  });

  it('cancels a prediction that does not finish in time', async () => {
    fake.setMode({ kind: 'hang' });
    const err = await rejection(generator({ timeoutMs: 250 }).generate(request()));
    expect(err.details).toMatchObject({ provider: 'replicate', reason: 'timeout', prediction_id: 'fakepred' + fake.predictions.size });
    const cancels = fake.requestsTo('/cancel', 'POST');
    expect(cancels).toHaveLength(1);
    expect(cancels[0].authorization).toBe(`Bearer ${TOKEN}`);
    expect([...fake.predictions.values()].at(-1)?.status).toBe('canceled');
  });

  it('cancels the prediction when the caller aborts', async () => {
    fake.setMode({ kind: 'hang' });
    const controller = new AbortController();
    const pending = generator({ timeoutMs: 60_000 }).generate(request(), controller.signal);
    await waitFor(() => fake.requestsTo('/v1/predictions/', 'GET').length > 0);
    controller.abort();
    const err = await rejection(pending);
    expect(err.details).toMatchObject({ reason: 'aborted' });
    expect(fake.requestsTo('/cancel', 'POST')).toHaveLength(1);
  });

  it('refuses an output larger than the download cap', async () => {
    fake.setMode({ kind: 'oversized', bytes: 300_000 });
    const err = await rejection(generator({ maxDownloadBytes: 100_000 }).generate(request({ count: 1 })));
    expect(err.details).toMatchObject({ provider: 'replicate', reason: 'too_large' });
  });

  it.each([
    ['a create answer that is not JSON', { kind: 'malformed_json' } as const],
    ['an output that is not a list of URLs', { kind: 'malformed_output' } as const],
    ['output files that are not images', { kind: 'bad_file' } as const],
  ])('calls %s a bad response', async (_name, mode) => {
    fake.setMode(mode);
    const err = await rejection(generator().generate(request({ count: 1 })));
    expect(err).toBeInstanceOf(AppError);
    expect(err.details).toMatchObject({ provider: 'replicate', reason: 'bad_response' });
  });

  describe('with a trained LoRA', () => {
    const lora = (over: Partial<NonNullable<ImageRequest['lora']>> = {}): ImageRequest['lora'] => ({
      id: 'lora_01HZX6FQJ5N6E7T2M3A4B5C6D7',
      baseModel: 'flux-dev',
      triggerWord: 'LUNA_K7',
      scale: 0.9,
      weightsUrl: WEIGHTS,
      style: null,
      ...over,
    });

    it('runs the flux LoRA model with the weights, the scale and the trigger word first in the prompt', async () => {
      await generator().generate(request({ count: 1, lora: lora() }));
      expect(creates()).toHaveLength(0);
      const [create] = fake.requestsTo(`/v1/models/${LORA_MODELS['flux-dev']}/predictions`, 'POST');
      expect(create.body.input).toEqual({
        prompt: 'LUNA_K7, tomatoes on a balcony at golden hour, sunlit film, soft focus',
        num_outputs: 1,
        aspect_ratio: '1:1',
        output_format: 'png',
        seed: 42,
        lora_weights: WEIGHTS,
        lora_scale: 0.9,
      });
      const prediction = [...fake.predictions.values()].at(-1)!;
      expect(prediction.model).toBe(LORA_MODELS['flux-dev']);
      expect(prediction.input.lora_weights).toBe(WEIGHTS);
    });

    it('does not repeat a trigger word the prompt already holds', async () => {
      await generator().generate(request({ count: 1, prompt: 'a portrait of LUNA_K7 in the rain', lora: lora() }));
      const [create] = fake.requestsTo(`/v1/models/${LORA_MODELS['flux-dev']}/predictions`, 'POST');
      expect(create.body.input.prompt).toBe('a portrait of LUNA_K7 in the rain, sunlit film, soft focus');
    });

    it('keeps the LoRA on every batch of a large request', async () => {
      await generator().generate(request({ count: 6, lora: lora() }));
      const batches = fake.requestsTo(`/v1/models/${LORA_MODELS['flux-dev']}/predictions`, 'POST');
      expect(batches.map((r) => [r.body.input.lora_weights, r.body.input.prompt.startsWith('LUNA_K7, ')])).toEqual([
        [WEIGHTS, true],
        [WEIGHTS, true],
      ]);
    });

    it('runs the sdxl version with replicate_weights and an explicit size', async () => {
      await generator().generate(request({ count: 1, width: 1024, height: 1280, lora: lora({ baseModel: 'sdxl', scale: 0.6 }) }));
      const [create] = fake.requestsTo('/v1/predictions', 'POST');
      expect(create.path).toBe('/v1/predictions');
      expect(create.body.version).toBe(LORA_MODELS.sdxl);
      expect(create.body.input).toMatchObject({ replicate_weights: WEIGHTS, lora_scale: 0.6, width: 1024, height: 1280, prompt: expect.stringMatching(/^LUNA_K7, /) });
      expect(create.body.input.aspect_ratio).toBeUndefined();
      expect(create.body.input.output_format).toBeUndefined();
      expect(create.body.input.lora_weights).toBeUndefined();
    });

    it('ignores an offline LoRA entirely: its style vector and trigger word mean nothing to Replicate', async () => {
      await generator().generate(request({ count: 1, lora: lora({ weightsUrl: null, style: [0.1, 0.2, 0.3] }) }));
      const [create] = creates();
      expect(create.body.input.prompt).toBe('tomatoes on a balcony at golden hour, sunlit film, soft focus');
      expect(Object.keys(create.body.input).filter((k) => k.includes('lora') || k.includes('weights'))).toEqual([]);
      expect(fake.requestsTo('/flux-dev-lora/', 'POST')).toHaveLength(0);
    });
  });

  it('refuses to run without a token', async () => {
    const err = await rejection(generator({ token: undefined }).generate(request()));
    expect(err.details).toMatchObject({ reason: 'not_configured' });
    expect(fake.requests).toHaveLength(0);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 1));
  if (!condition()) throw new Error('condition never became true');
}
