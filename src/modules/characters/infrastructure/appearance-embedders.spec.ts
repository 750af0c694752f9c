import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { fakeEmbeddingOf, startFakeEmbeddingServer, type FakeEmbeddingServer } from '../../../../test/fakes/embedding-server.js';
import { AppError } from '../../../core/index.js';
import { cosineSimilarity, EMBEDDING_DIMENSIONS } from '../domain/embedding.js';
import { HttpAppearanceEmbedder } from './http-appearance-embedder.js';
import { LocalAppearanceEmbedder } from './local-appearance-embedder.js';

/** A 64x48 test picture: a gradient with a block whose position and colour vary by `seed`. */
function pixels(seed: number): Buffer {
  const w = 64;
  const h = 48;
  const raw = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      const inBlock = x >= (seed * 7) % 40 && x < ((seed * 7) % 40) + 20 && y >= 10 && y < 30;
      raw[i] = inBlock ? (seed * 53) % 256 : x * 4;
      raw[i + 1] = inBlock ? (seed * 97) % 256 : y * 5;
      raw[i + 2] = inBlock ? 255 - ((seed * 31) % 256) : 128;
    }
  }
  return raw;
}

const encode = (raw: Buffer, format: 'png' | 'webp' | 'jpeg') => {
  const img = sharp(raw, { raw: { width: 64, height: 48, channels: 3 } });
  return (format === 'png' ? img.png() : format === 'webp' ? img.webp({ lossless: true }) : img.jpeg({ quality: 90 })).toBuffer();
};

describe('LocalAppearanceEmbedder', () => {
  const embedder = new LocalAppearanceEmbedder();

  it('answers 512 finite numbers of unit length', async () => {
    const v = await embedder.embed(await encode(pixels(1), 'png'));
    expect(v).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(v.every(Number.isFinite)).toBe(true);
    expect(Math.sqrt(v.reduce((s, x) => s + x * x, 0))).toBeCloseTo(1, 6);
  });

  it('gives the same vector for the same pixels, whatever the lossless encoding', async () => {
    const a = await embedder.embed(await encode(pixels(2), 'png'));
    const b = await embedder.embed(await encode(pixels(2), 'png'));
    const c = await embedder.embed(await encode(pixels(2), 'webp'));
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('gives different vectors for different pictures, and a close one for a lossy copy', async () => {
    const a = await embedder.embed(await encode(pixels(3), 'png'));
    const other = await embedder.embed(await encode(pixels(4), 'png'));
    const lossy = await embedder.embed(await encode(pixels(3), 'jpeg'));
    expect(other).not.toEqual(a);
    expect(cosineSimilarity(a, other)).toBeLessThan(0.99);
    expect(cosineSimilarity(a, lossy)).toBeGreaterThan(cosineSimilarity(a, other));
  });

  it('refuses bytes that do not decode', async () => {
    const corrupt = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('garbage')]);
    await expect(embedder.embed(corrupt)).rejects.toMatchObject({ code: 'unsupported_media_type' });
  });
});

describe('HttpAppearanceEmbedder against the fake embedding service', () => {
  let fake: FakeEmbeddingServer;
  const image = Buffer.from('pretend-image-bytes');
  beforeAll(async () => {
    fake = await startFakeEmbeddingServer({ apiKey: 'emb-secret' });
  });
  afterAll(async () => {
    await fake.close();
  });
  const embedder = (extra: { timeoutMs?: number; apiKey?: string; model?: string } = {}) =>
    new HttpAppearanceEmbedder({ url: fake.url, apiKey: 'emb-secret', backoffMs: 10, timeoutMs: 2_000, ...extra });

  it('posts the base64 image with the bearer key and answers the embedding', async () => {
    fake.requests.length = 0;
    const v = await embedder({ model: 'face-v2' }).embed(image);
    expect(v).toEqual(fakeEmbeddingOf(image));
    expect(fake.requests).toEqual([{ authorization: 'Bearer emb-secret', model: 'face-v2', imageBytes: image.length, imageSha256: expect.any(String) }]);
  });

  it('retries a 5xx and a 429, then succeeds', async () => {
    fake.requests.length = 0;
    fake.script.push({ status: 503 }, { status: 429, retryAfter: 0 });
    expect(await embedder().embed(image)).toEqual(fakeEmbeddingOf(image));
    expect(fake.requests).toHaveLength(3);
  });

  it('gives up after three failing attempts with a readable error', async () => {
    fake.requests.length = 0;
    fake.script.push({ status: 500 }, { status: 502 }, { status: 500 }, { status: 500 });
    const err = await embedder().embed(image).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'upstream_failed', message: expect.stringMatching(/answered 500 after 3 attempts/) });
    expect(fake.requests).toHaveLength(3);
    fake.script.length = 0;
  });

  it('does not retry other client errors', async () => {
    fake.requests.length = 0;
    await expect(embedder({ apiKey: 'wrong' }).embed(image)).rejects.toMatchObject({ code: 'upstream_failed', message: expect.stringMatching(/answered 401/) });
    expect(fake.requests).toHaveLength(0);
    fake.script.push({ status: 400 });
    await expect(embedder().embed(image)).rejects.toMatchObject({ message: expect.stringMatching(/answered 400\b/) });
    expect(fake.requests).toHaveLength(1);
  });

  it.each(['malformed', 'wrong_size', 'not_json'] as const)('refuses a %s answer', async (behaviour) => {
    fake.script.push(behaviour);
    await expect(embedder().embed(image)).rejects.toMatchObject({ code: 'upstream_failed', message: expect.stringMatching(/embedding of 512 finite numbers|not JSON/) });
  });

  it('times out a service that never answers', async () => {
    fake.script.push('hang');
    // The message names the timeout that fired, so it was the 300 ms budget and not another failure.
    await expect(embedder({ timeoutMs: 300 }).embed(image)).rejects.toMatchObject({ code: 'upstream_failed', message: expect.stringMatching(/within 300 ms/) });
  });

  it('reports an unreachable service', async () => {
    const gone = new HttpAppearanceEmbedder({ url: 'http://127.0.0.1:1/embed', timeoutMs: 1_000 });
    await expect(gone.embed(image)).rejects.toMatchObject({ code: 'upstream_failed', message: expect.stringMatching(/could not be reached/) });
  });
});
