import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { FakeA1111Server } from '../../../../test/fakes/a1111-server.js';
import { until } from '../../../../test/fakes/gpu-server-base.js';
import type { GpuImageRequest, GpuTarget } from '../application/ports/gpu-backend.js';
import { live, outboundFailure } from './gpu-spec-fixtures.js';
import { A1111Backend } from './a1111-backend.js';
import type { GpuBackendOptions } from './gpu-http.js';

const CREDENTIALS = 'forge:s3cret-pass';
let fake: FakeA1111Server;
let target: GpuTarget;
const backend = new A1111Backend({ ceilingMs: 20_000 });

beforeAll(async () => {
  fake = new FakeA1111Server(CREDENTIALS);
  target = { id: 'gpu_a1111', kind: 'a1111', url: await fake.start(), apiKey: CREDENTIALS, workflow: null };
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.mode = {};
  fake.options.ping = true;
  fake.options.malformed = false;
  fake.payloads.length = 0;
  fake.initImages.length = 0;
  fake.resetStats();
});

const request = (over: Partial<GpuImageRequest> = {}): GpuImageRequest => ({ prompt: 'a lighthouse at dusk', width: 640, height: 512, count: 2, seed: 42, ...over });

describe('A1111Backend.generate', () => {
  it('draws text-to-image with the asked size, count and seed, authenticated by HTTP Basic', async () => {
    const images = await backend.generate(target, request({ negativePrompt: 'blurry' }), live());
    expect(images).toHaveLength(2);
    for (const image of images) {
      expect(image).toMatchObject({ contentType: 'image/png', width: 640, height: 512 });
      const meta = await sharp(image.bytes).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 640, 512]);
    }
    expect(fake.payloads[0]).toMatchObject({ prompt: 'a lighthouse at dusk', negative_prompt: 'blurry', width: 640, height: 512, batch_size: 2, n_iter: 1, seed: 42 });
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/sdapi/v1/txt2img', authorization: `Basic ${Buffer.from(CREDENTIALS).toString('base64')}` });
  });

  it('asks for a random seed when the request has none', async () => {
    await backend.generate(target, request({ seed: undefined, count: 1 }), live());
    expect(fake.payloads[0].seed).toBe(-1);
  });

  it('draws image-to-image from the init image with the asked strength', async () => {
    const init = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366ff' } }).png().toBuffer();
    const images = await backend.generate(target, request({ count: 1, initImage: { bytes: init, contentType: 'image/png' }, strength: 0.4 }), live());
    expect(images).toHaveLength(1);
    expect(fake.requests[0].path).toBe('/sdapi/v1/img2img');
    expect(fake.initImages[0].equals(init)).toBe(true);
    expect(fake.payloads[0].denoising_strength).toBe(0.4);
  });

  it('is refused (401) without the right credentials', async () => {
    const err = await outboundFailure(backend.generate({ ...target, apiKey: 'forge:wrong' }, request(), live()));
    expect([err.kind, err.status]).toEqual(['http', 401]);
    expect(fake.generations).toBe(0);
  });

  it('reports a 5xx as an http failure with its status, without retrying', async () => {
    fake.mode = { fail5xx: 'all' };
    const err = await outboundFailure(backend.generate(target, request(), live()));
    expect([err.kind, err.status, err.attempts]).toEqual(['http', 500, 1]);
    expect(fake.requests).toHaveLength(1);
  });

  it('reports a reset connection as a network failure', async () => {
    fake.mode = { reset: 1 };
    const err = await outboundFailure(backend.generate(target, request(), live()));
    expect(err.kind).toBe('network');
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

  it.each(['not_json', 'not_images'] as const)('calls a %s 200 answer a bad response', async (malformed) => {
    fake.options.malformed = malformed;
    expect((await outboundFailure(backend.generate(target, request(), live()))).kind).toBe('bad_response');
  });
});

describe('A1111Backend.probe', () => {
  it('pings /internal/ping', async () => {
    await backend.probe(target, live());
    expect(fake.requests.map((r) => r.path)).toEqual(['/internal/ping']);
  });

  it('falls back to the options route on builds without the ping route', async () => {
    fake.options.ping = false;
    await backend.probe(target, live());
    expect(fake.requests.map((r) => r.path)).toEqual(['/internal/ping', '/sdapi/v1/options']);
  });

  it('fails on a 503 health route and on a reset connection', async () => {
    fake.mode = { healthDown: '503' };
    const down = await outboundFailure(backend.probe(target, live()));
    expect([down.kind, down.status]).toEqual(['http', 503]);
    fake.mode = { healthDown: 'reset' };
    expect((await outboundFailure(backend.probe(target, live()))).kind).toBe('network');
  });

  it('fails when nothing listens', async () => {
    const gone = new FakeA1111Server();
    const url = await gone.start();
    await gone.stop();
    expect((await outboundFailure(backend.probe({ ...target, url }, live()))).kind).toBe('network');
  });
});

describe('FakeA1111Server', () => {
  it('draws one generation at a time, counting every request it holds', async () => {
    fake.pause();
    const runs = [1, 2, 3].map((seed) => backend.generate(target, request({ count: 1, seed }), live()));
    await until(() => fake.held === 3, 'three requests held');
    expect(fake.generations).toBe(0);
    fake.resume();
    await Promise.all(runs);
    expect(fake.maxHeld).toBe(3);
    expect(fake.held).toBe(0);
    expect(fake.generations).toBe(3);
    expect(fake.maxRunning).toBe(1);
  });

  it('drops every connection when stopped mid-run and serves again on the same port', async () => {
    const own = new FakeA1111Server();
    const url = await own.start();
    own.mode = { slowMs: 60_000 };
    const ownTarget: GpuTarget = { ...target, url, apiKey: null };
    const pending = outboundFailure(backend.generate(ownTarget, request(), live()));
    await until(() => own.held === 1, 'the fake to hold the request');
    await own.stop();
    expect((await pending).kind).toBe('network');
    own.mode = {};
    expect(await own.start(Number(new URL(url).port))).toBe(url);
    try {
      expect(await backend.generate(ownTarget, request({ count: 1 }), live())).toHaveLength(1);
    } finally {
      await own.stop();
    }
  });
});

describe('A1111Backend address rules at connect time', () => {
  const named = (resolve: GpuBackendOptions['resolve']) => new A1111Backend({ ceilingMs: 20_000, resolve });
  const namedTarget = (): GpuTarget => ({ ...target, url: `http://gpu.rack.test:${new URL(target.url).port}` });

  it('resolves the endpoint name at every call and connects to the address it vetted', async () => {
    let lookups = 0;
    const backend = named(async () => {
      lookups += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    });
    expect(await backend.generate(namedTarget(), request({ count: 1 }), live())).toHaveLength(1);
    await backend.probe(namedTarget(), live());
    expect(lookups).toBe(2);
  });

  it.each([['169.254.169.254', 4], ['64:ff9b::a9fe:a9fe', 6], ['::ffff:0:a9fe:a9fe', 6], ['2002:a9fe:a9fe::', 6]] as const)(
    'refuses a name that now resolves to the metadata address %s, without connecting',
    async (address, family) => {
      const err = await outboundFailure(named(async () => [{ address: '127.0.0.1', family: 4 }, { address, family }]).generate(namedTarget(), request(), live()));
      expect(err.kind).toBe('blocked');
      expect(fake.requests).toEqual([]);
    },
  );

  it('never follows a redirect: a 307 elsewhere is an http failure and the other server is not asked', async () => {
    const elsewhere = new FakeA1111Server();
    const url = await elsewhere.start();
    try {
      fake.mode = { redirectTo: `${url}/sdapi/v1/txt2img` };
      const err = await outboundFailure(backend.generate(target, request(), live()));
      expect([err.kind, err.status]).toEqual(['http', 307]);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.stop();
    }
  });
});
