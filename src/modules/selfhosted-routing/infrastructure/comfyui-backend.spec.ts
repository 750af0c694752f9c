import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { FakeComfyUiServer } from '../../../../test/fakes/comfyui-server.js';
import { until } from '../../../../test/fakes/gpu-server-base.js';
import type { GpuImageRequest, GpuTarget } from '../application/ports/gpu-backend.js';
import { live, outboundFailure } from './gpu-spec-fixtures.js';
import { ComfyUiBackend } from './comfyui-backend.js';

const TOKEN = 'comfy-proxy-token';
let fake: FakeComfyUiServer;
let target: GpuTarget;
const backend = new ComfyUiBackend({ ceilingMs: 20_000, pollIntervalMs: 5 });

beforeAll(async () => {
  fake = new FakeComfyUiServer(TOKEN);
  target = { id: 'gpu_comfy', kind: 'comfyui', url: await fake.start(), apiKey: TOKEN, workflow: null };
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.resume();
  fake.mode = {};
  fake.options.executionError = false;
  fake.options.malformed = false;
  fake.prompts.clear();
  fake.cancelled = 0;
  fake.resetStats();
});

const request = (over: Partial<GpuImageRequest> = {}): GpuImageRequest => ({ prompt: 'a lighthouse at dusk', width: 768, height: 512, count: 2, seed: 42, ...over });
const lastWorkflow = () => [...fake.prompts.values()].at(-1)!.workflow;
const nodeOf = (type: string) => Object.values(lastWorkflow()).find((n) => n.class_type === type)!.inputs;
const pngOf = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#3366ff' } }).png().toBuffer();

describe('ComfyUiBackend.generate', () => {
  it('queues the built-in workflow, waits for its history and reads every image, with the bearer token', async () => {
    const images = await backend.generate(target, request({ negativePrompt: 'blurry' }), live());
    expect(images).toHaveLength(2);
    for (const image of images) {
      expect(image).toMatchObject({ contentType: 'image/png', width: 768, height: 512 });
      expect((await sharp(image.bytes).metadata()).format).toBe('png');
    }
    expect(nodeOf('EmptyLatentImage')).toEqual({ width: 768, height: 512, batch_size: 2 });
    expect(nodeOf('KSampler')).toMatchObject({ seed: 42, denoise: 1 });
    expect(Object.values(lastWorkflow()).filter((n) => n.class_type === 'CLIPTextEncode').map((n) => n.inputs.text)).toEqual(['a lighthouse at dusk', 'blurry']);
    expect(fake.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(fake.requests.filter((r) => r.path === '/view')).toHaveLength(2);
  });

  it('uploads the init image and draws image-to-image from it at the asked strength', async () => {
    const init = await pngOf(40, 30);
    const images = await backend.generate(target, request({ count: 3, initImage: { bytes: init, contentType: 'image/png' }, strength: 0.4 }), live());
    expect(images).toHaveLength(3);
    const loaded = String(nodeOf('LoadImage').image);
    expect(fake.uploaded(loaded)?.equals(init)).toBe(true);
    expect(nodeOf('KSampler').denoise).toBe(0.4);
    expect(nodeOf('RepeatLatentBatch').amount).toBe(3);
    expect(nodeOf('ImageScale')).toMatchObject({ width: 768, height: 512 });
  });

  it('is refused (401) without the right token', async () => {
    const err = await outboundFailure(backend.generate({ ...target, apiKey: 'wrong' }, request(), live()));
    expect([err.kind, err.status]).toEqual(['http', 401]);
  });

  it('reports a workflow ComfyUI refuses (node_errors) as http 400', async () => {
    const workflow = { ...OVERRIDE, '3': { class_type: 'KSampler', inputs: { ...OVERRIDE['3'].inputs, steps: 'many' } } };
    const err = await outboundFailure(backend.generate({ ...target, workflow }, request(), live()));
    expect([err.kind, err.status]).toEqual(['http', 400]);
    expect(err.bodySnippet).toContain('invalid_input_type');
    expect(fake.prompts.size).toBe(0);
  });

  it('reports a 5xx as an http failure with its status, without retrying', async () => {
    fake.mode = { fail5xx: 1 };
    const err = await outboundFailure(backend.generate(target, request(), live()));
    expect([err.kind, err.status, err.attempts]).toEqual(['http', 500, 1]);
    expect(fake.requests.filter((r) => r.path === '/prompt')).toHaveLength(1);
  });

  it('reports a reset connection as a network failure', async () => {
    fake.mode = { reset: 'all' };
    expect((await outboundFailure(backend.generate(target, request(), live()))).kind).toBe('network');
  });

  it('reports a prompt that failed on the server as a bad response', async () => {
    fake.options.executionError = true;
    const err = await outboundFailure(backend.generate(target, request(), live()));
    expect(err.kind).toBe('bad_response');
    expect(err.message).toContain('CUDA out of memory');
  });

  it.each(['prompt', 'view'] as const)('calls a malformed %s answer a bad response', async (malformed) => {
    fake.options.malformed = malformed;
    expect((await outboundFailure(backend.generate(target, request(), live()))).kind).toBe('bad_response');
  });

  it('fails, rather than waiting for ever, when the server forgot the prompt (it restarted)', async () => {
    fake.pause();
    const pending = outboundFailure(backend.generate(target, request(), live()));
    await until(() => fake.requests.some((r) => r.path.startsWith('/history/')), 'the first poll');
    fake.forget();
    const err = await pending;
    expect(err.kind).toBe('bad_response');
    expect(err.message).toContain('lost');
    expect(fake.held).toBe(0);
  });

  it('gives up a hanging request when the signal aborts, closing it on the server', async () => {
    fake.mode = { hang: true };
    const controller = new AbortController();
    const pending = outboundFailure(backend.generate(target, request(), controller.signal));
    await until(() => fake.held === 1, 'the fake to hold the request');
    controller.abort();
    expect((await pending).kind).toBe('aborted');
    await until(() => fake.abortedRequests === 1, 'the fake to see the request closed');
    expect(fake.held).toBe(0);
  });

  it('takes an abandoned prompt off the queue when the signal aborts while it waits', async () => {
    fake.pause();
    const controller = new AbortController();
    const pending = outboundFailure(backend.generate(target, request(), controller.signal));
    await until(() => fake.prompts.size === 1, 'the prompt to be queued');
    controller.abort();
    expect((await pending).kind).toBe('aborted');
    await until(() => fake.cancelled === 1, 'the prompt to be cancelled');
    expect([[...fake.prompts.values()][0].status, fake.held, fake.generations]).toEqual(['deleted', 0, 0]);
  });

  it('interrupts an abandoned prompt that already runs, and only that one', async () => {
    fake.mode = { slowMs: 60_000 };
    const controller = new AbortController();
    const pending = outboundFailure(backend.generate(target, request(), controller.signal));
    await until(() => [...fake.prompts.values()][0]?.status === 'running', 'the prompt to run');
    controller.abort();
    expect((await pending).kind).toBe('aborted');
    await until(() => fake.cancelled === 1, 'the prompt to be interrupted');
    expect([[...fake.prompts.values()][0].status, fake.held]).toEqual(['interrupted', 0]);
    expect(fake.requests.find((r) => r.path === '/interrupt')?.body).toMatch(/^json \{prompt_id\}/);
  });
});

/** An admin's override: its own checkpoint and sampler, the request written in through placeholders. */
const OVERRIDE = {
  '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'juggernautXL_v9.safetensors' } },
  '2': { class_type: 'CLIPTextEncode', inputs: { text: 'analog photo, {{prompt}}, 35mm', clip: ['1', 1] } },
  '3': {
    class_type: 'KSampler',
    inputs: { seed: '{{seed}}', steps: 30, cfg: 5.5, sampler_name: 'euler', scheduler: 'normal', denoise: '{{strength}}', model: ['1', 0], positive: ['2', 0], negative: ['6', 0], latent_image: ['4', 0] },
  },
  '4': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: '{{count}}' } },
  '5': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['1', 2] } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{negative_prompt}}', clip: ['1', 1] } },
  '7': { class_type: 'SaveImage', inputs: { filename_prefix: 'studio_{{seed}}', images: ['5', 0] } },
};

describe('ComfyUiBackend with an override workflow', () => {
  it('writes the request into the placeholders, numbers as numbers, and leaves the override as it was', async () => {
    const before = JSON.stringify(OVERRIDE);
    const images = await backend.generate({ ...target, workflow: OVERRIDE }, request({ count: 3, seed: 7, negativePrompt: 'text' }), live());
    expect(images).toHaveLength(3);
    const w = lastWorkflow();
    expect(w['1'].inputs.ckpt_name).toBe('juggernautXL_v9.safetensors');
    expect(w['2'].inputs.text).toBe('analog photo, a lighthouse at dusk, 35mm');
    expect(w['6'].inputs.text).toBe('text');
    expect(w['3'].inputs).toMatchObject({ seed: 7, denoise: 1, steps: 30 });
    expect(w['4'].inputs).toEqual({ width: 768, height: 512, batch_size: 3 });
    expect(w['7'].inputs.filename_prefix).toBe('studio_7');
    expect(JSON.stringify(OVERRIDE)).toBe(before);
  });

  it('writes the uploaded image and the strength into an image-to-image override', async () => {
    const workflow = {
      ...OVERRIDE,
      '8': { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
      '9': { class_type: 'VAEEncode', inputs: { pixels: ['8', 0], vae: ['1', 2] } },
      '3': { class_type: 'KSampler', inputs: { ...OVERRIDE['3'].inputs, latent_image: ['9', 0] } },
    };
    const init = await pngOf(32, 32);
    await backend.generate({ ...target, workflow }, request({ count: 1, initImage: { bytes: init, contentType: 'image/png' }, strength: 0.55 }), live());
    const w = lastWorkflow();
    expect(fake.uploaded(String(w['8'].inputs.image))?.equals(init)).toBe(true);
    expect(w['3'].inputs.denoise).toBe(0.55);
  });

  it('refuses image-to-image (400, nothing sent) when the override has no {{image}}', async () => {
    const init = await pngOf(32, 32);
    const err = await outboundFailure(backend.generate({ ...target, workflow: OVERRIDE }, request({ initImage: { bytes: init, contentType: 'image/png' } }), live()));
    expect([err.kind, err.status]).toEqual(['http', 400]);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('ComfyUiBackend.probe', () => {
  it('reads /system_stats', async () => {
    await backend.probe(target, live());
    expect(fake.requests.map((r) => [r.path, r.authorization])).toEqual([['/system_stats', `Bearer ${TOKEN}`]]);
  });

  it('fails on a 503 health route and on a reset connection', async () => {
    fake.mode = { healthDown: '503' };
    const down = await outboundFailure(backend.probe(target, live()));
    expect([down.kind, down.status]).toEqual(['http', 503]);
    fake.mode = { healthDown: 'reset' };
    expect((await outboundFailure(backend.probe(target, live()))).kind).toBe('network');
  });
});

describe('FakeComfyUiServer', () => {
  it('runs one prompt at a time, counting every queued prompt as held', async () => {
    fake.pause();
    const runs = [1, 2, 3].map((seed) => backend.generate(target, request({ count: 1, seed }), live()));
    await until(() => fake.held === 3, 'three prompts held');
    expect(fake.generations).toBe(0);
    fake.resume();
    await Promise.all(runs);
    expect([fake.maxHeld, fake.held, fake.generations, fake.maxRunning]).toEqual([3, 0, 3, 1]);
  });
});
