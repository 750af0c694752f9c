import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fakes/embedding-server.js';
import { startFakeS3, type FakeS3 } from '../fakes/s3-server.js';
import { api, registerUser, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function makeImage(seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(32 * 32 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * (seed + 5) * 131 + seed) % 256;
  return sharp(raw, { raw: { width: 32, height: 32, channels: 3 } }).png().toBuffer();
}

/**
 * The S3-compatible storage adapter and the HTTP embedding adapter, end to end: uploads land in
 * a signature-checking fake object store and are served to clients by presigned URLs; the
 * face-embedding job (in a worker process when Redis is there) calls a fake embedding service.
 */
describe('S3 storage and HTTP embedding', () => {
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let s3: FakeS3;
  let embeddings: FakeEmbeddingServer;
  let user: TestUser;

  beforeAll(async () => {
    s3 = await startFakeS3();
    embeddings = await startFakeEmbeddingServer({ apiKey: 'embed-key-123' });
    backing = await createBacking();
    const env = {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: s3.url,
      S3_BUCKET: s3.bucket,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      EMBEDDING_URL: embeddings.url,
      EMBEDDING_API_KEY: 'embed-key-123',
    };
    server = await startServer(backing, env);
    // With Redis, jobs run in a separate worker process, as deployed; without, in the API.
    if (E2E_MODE === 'services') worker = await startWorker(backing, env);
    user = await registerUser(server);
  });
  afterAll(async () => {
    await worker?.stop();
    await server?.stop();
    await backing?.cleanup();
    await s3?.close();
    await embeddings?.close();
  });

  const upload = (id: string, image: Buffer) =>
    api(server).post(`/characters/${id}/reference-images`).set(user.auth).attach('image', image, { filename: 'face.png', contentType: 'image/png' });
  const finished = (jobId: string) =>
    waitFor(async () => {
      const res = await api(server).get(`/jobs/${jobId}`).set(user.auth);
      return ['completed', 'failed'].includes(res.body.job?.status) ? res.body.job : null;
    }, 20_000, `job ${jobId}`);

  it('stores uploads in the object store, serves them back and embeds them through the HTTP service', async () => {
    const character = (await api(server).post('/characters').set(user.auth).send({ name: 'Cloud', niche: 'x' })).body.character;
    const image = await makeImage(1);
    const res = await upload(character.id, image);
    expect(res.status).toBe(201);
    const ref = res.body.reference_image;
    const key = `characters/${character.id}/${ref.id}.png`;
    expect(s3.objects.get(key)?.body.equals(image)).toBe(true);
    expect(s3.objects.get(key)?.contentType).toBe('image/png');
    expect(s3.requests.every((r) => r.status !== 403)).toBe(true);

    // Private media with S3: the answer carries a presigned GET of the object in the store itself.
    const presigned = new URL(ref.url);
    expect(`${presigned.origin}${presigned.pathname}`).toBe(`${s3.url}/${s3.bucket}/${key}`);
    expect(presigned.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(Number(presigned.searchParams.get('X-Amz-Expires'))).toBeGreaterThanOrEqual(3600);
    const served = await fetch(ref.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true);
    // Unsigned or tampered, the store refuses it; our own media route refuses it unsigned too.
    expect((await fetch(`${s3.url}/${s3.bucket}/${key}`)).status).toBe(403);
    expect((await fetch(ref.url.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=604800'))).status).toBe(403);
    const plainRoute = await fetch(new URL(`/api/v1/media/${key}`, server.url));
    expect(plainRoute.status).toBe(403);
    expect(await plainRoute.json()).toMatchObject({ code: 'forbidden' });

    const job = await finished(res.body.job.id);
    expect(job).toMatchObject({ status: 'completed', result: { embedded_images: 1, reference_images: 1, updated: true } });
    expect(embeddings.requests.at(-1)).toMatchObject({ authorization: 'Bearer embed-key-123', imageSha256: sha256(image) });
    const after = (await api(server).get(`/characters/${character.id}`).set(user.auth)).body.character;
    expect(after.face_embedding_updated_at).not.toBeNull();

    // Deleting the character removes its objects from the store.
    await api(server).delete(`/characters/${character.id}`).set(user.auth).expect(204);
    await waitFor(async () => !s3.objects.has(key), 5_000, 'object removed');
    expect((await fetch(ref.url)).status).toBe(404);
  });

  it('fails the job readably when the embedding service keeps failing, and catches up on the next run', async () => {
    const character = (await api(server).post('/characters').set(user.auth).send({ name: 'Flaky', niche: 'x' })).body.character;
    embeddings.script.push({ status: 500 }, { status: 503 }, { status: 500 });
    const first = await upload(character.id, await makeImage(2));
    expect(first.status).toBe(201);
    const failed = await finished(first.body.job.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({ code: 'upstream_failed', message: expect.stringMatching(/embedding service answered 500 after 3 attempts/) });
    expect((await api(server).get(`/characters/${character.id}`).set(user.auth)).body.character.face_embedding_updated_at).toBeNull();

    // The next upload's job embeds both images: the one the failed run missed, and the new one.
    const second = await upload(character.id, await makeImage(3));
    const done = await finished(second.body.job.id);
    expect(done).toMatchObject({ status: 'completed', result: { embedded_images: 2, reference_images: 2 } });
    expect((await api(server).get(`/characters/${character.id}`).set(user.auth)).body.character.face_embedding_updated_at).not.toBeNull();
  });
});
