import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { MediaSigner } from '../../src/platform/storage/media-signature.js';
import { api, grantCredits, loginAdmin, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { closePlatformFakes, platformEnv, startPlatformFakes, type PlatformFakes } from '../fakes/platforms/index.js';

type Item = Record<string, any>;

const SIGNING_KEY = 'media-signing-key-for-e2e-0123456789abcdef';
const APP_URL = 'http://app.e2e.test';
const DAY = 24 * 3600;

/**
 * Private media (issue 12, items 5 and 11): stored files are served only to holders of a signed,
 * unexpired URL; answers carry fresh ones; platforms get URLs that outlive their fetch; deleting a
 * character or a content item removes its files at once.
 */
describe('private media', () => {
  let fakes: PlatformFakes;
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let user: TestUser;
  let storageDir: string;
  const signer = new MediaSigner(SIGNING_KEY);
  /** The API's PUBLIC_URL (server.url ends in /api/v1). */
  const origin = () => `http://127.0.0.1:${server.port}`;

  /** GET a media path (with its query) from the API server, whatever host the URL names. */
  const fetchMedia = (url: string) => fetch(new URL(`${new URL(url).pathname}${new URL(url).search}`, server.url));
  const keyOf = (url: string) => decodeURIComponent(new URL(url).pathname.replace('/api/v1/media/', ''));
  const stored = (url: string) => join(storageDir, keyOf(url));

  const makeImage = (seed: number) =>
    sharp({ create: { width: 24, height: 20, channels: 3, background: { r: seed * 40, g: 90, b: 200 - seed * 30 } } }).png().toBuffer();
  const newCharacter = async (name: string): Promise<string> => {
    const res = await api(server).post('/characters').set(user.auth).send({ name, niche: 'gardening', settings: { autopilot: true } });
    expect(res.status).toBe(201);
    return res.body.character.id as string;
  };
  const uploadImage = async (characterId: string, seed: number): Promise<{ url: string; bytes: Buffer }> => {
    const bytes = await makeImage(seed);
    const res = await api(server).post(`/characters/${characterId}/reference-images`).set(user.auth).attach('file', bytes, { filename: 'face.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
    return { url: res.body.reference_image.url as string, bytes };
  };
  const approvedItem = async (characterId: string, platform = 'instagram'): Promise<Item> => {
    const res = await api(server).post('/content/generate').set(user.auth).send({ character_id: characterId, platform, prompt: 'morning light on basil', type: 'single' });
    expect(res.status).toBe(201);
    const id = res.body.item.id as string;
    return waitFor(async () => {
      const item = (await api(server).get(`/content/${id}`).set(user.auth)).body.item as Item;
      if (item.status === 'failed') throw new Error(`item ${id} failed: ${JSON.stringify(item.job)}`);
      return item.status === 'approved' ? item : undefined;
    }, 30_000, `item ${id} approved`);
  };

  beforeAll(async () => {
    fakes = await startPlatformFakes();
    backing = await createBacking();
    storageDir = join(backing.env.DATA_DIR, 'uploads');
    const env = { ...platformEnv({ instagram: fakes.instagram }), MEDIA_SIGNING_KEY: SIGNING_KEY, APP_URL, AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50' };
    server = await startServer(backing, env);
    // A worker signs URLs too (socket events, what it hands platforms): it must know how clients reach the API.
    if (E2E_MODE === 'services') worker = await startWorker(backing, { ...env, PUBLIC_URL: origin() });
    user = await registerUser(server);
    // Room for the characters and images below: the Agency plan and some credits.
    const admin = await loginAdmin(server);
    await setPlan(server, admin, user.workspace.id, 'agency');
    await grantCredits(server, admin, user.workspace.id, 200);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), worker?.stop()]);
    await closePlatformFakes(fakes);
    await backing?.cleanup();
  });

  describe('the media route', () => {
    it('serves a signed URL from an answer: the bytes, nosniff, the type, and a private cache no longer than its life', async () => {
      const character = await newCharacter('Signed');
      const { url, bytes } = await uploadImage(character, 1);
      expect(url).toMatch(new RegExp(`^${origin()}/api/v1/media/characters/${character}/ref_[0-9A-Z]{26}\\.png\\?expires=\\d+&signature=[\\w-]{43}$`));
      const res = await fetchMedia(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-type')).toBe('image/png');
      const maxAge = Number(/^private, max-age=(\d+)$/.exec(res.headers.get('cache-control') ?? '')?.[1]);
      const life = Number(new URL(url).searchParams.get('expires')) - Math.floor(Date.now() / 1000);
      expect(maxAge).toBeGreaterThan(3000);
      expect(maxAge).toBeLessThanOrEqual(life + 1);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    });

    it('answers 403 forbidden with the JSON error body to an unsigned, tampered or expired URL, the same whether the file exists or not', async () => {
      const character = await newCharacter('Refused');
      const { url } = await uploadImage(character, 2);
      const key = keyOf(url);
      const path = new URL(url).pathname;
      const expires = new URL(url).searchParams.get('expires')!;
      const signature = new URL(url).searchParams.get('signature')!;
      const past = Math.floor(Date.now() / 1000) - 5;
      const missing = path.replace(/ref_[0-9A-Z]{26}/, 'ref_01HZX6FQJ5N6E7T2M3A4B5C6D7');
      const refused = [
        path, // unsigned
        missing, // unsigned, no such file
        `${path}?expires=${expires}`,
        `${path}?expires=${Number(expires) + 3600}&signature=${signature}`, // a longer life
        `${missing}?expires=${expires}&signature=${signature}`, // another file
        `${path}?expires=${expires}&signature=${signature.slice(0, -2)}AA`,
        `${path}?expires=${past}&signature=${signer.signature(key, past)}`, // genuinely signed, expired
        `${path}?expires=${expires}&signature=${signature}&signature=${signature}`,
        `/api/v1/media/characters/..%2F..%2Fsecrets.json?expires=${expires}&signature=${signer.signature('../secrets.json', Number(expires))}`,
      ];
      const bodies: unknown[] = [];
      for (const target of refused) {
        const res = await api(server).get(target.replace('/api/v1', ''));
        expect([target, res.status]).toEqual([target, 403]);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toMatchObject({ statusCode: 403, code: 'forbidden', request_id: expect.any(String) });
        expect(res.headers['cache-control'] ?? '').not.toMatch(/public|immutable/);
        bodies.push({ ...res.body, request_id: undefined });
      }
      // Nothing tells an existing file from a missing one.
      expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
      // The test's signer is the server's: the same key, signed for the future, is served.
      const future = Math.floor(Date.now() / 1000) + 120;
      expect((await fetch(`${origin()}${path}?expires=${future}&signature=${signer.signature(key, future)}`)).status).toBe(200);
    });

    it('refreshes signed URLs on every read; a client sending them back keeps its uploads', async () => {
      const character = await newCharacter('Fresh');
      const { url } = await uploadImage(character, 3);
      const got = (await api(server).get(`/characters/${character}`).set(user.auth)).body.character;
      expect(got.reference_images).toHaveLength(1);
      expect(keyOf(got.reference_images[0])).toBe(keyOf(url));
      expect((await fetchMedia(got.reference_images[0])).status).toBe(200);
      const listed = (await api(server).get('/characters').set(user.auth)).body.characters.find((c: Item) => c.id === character);
      expect((await fetchMedia(listed.reference_images[0])).status).toBe(200);
      // PATCH with the signed URLs the client was given: the upload stays, listed once.
      const patched = await api(server).patch(`/characters/${character}`).set(user.auth).send({ reference_images: [...got.reference_images, 'https://example.com/face.png'] });
      expect(patched.status).toBe(200);
      expect(patched.body.character.reference_images.map((u: string) => u.split('?')[0])).toEqual([url.split('?')[0], 'https://example.com/face.png']);
      expect(existsSync(stored(url))).toBe(true);
      // Listing another workspace's media URL as one's own never gets it signed.
      const other = await registerUser(server);
      const made = await api(server).post('/characters').set(other.auth).send({ name: 'Thief', niche: 'x', reference_images: [url.split('?')[0]] });
      expect(made.status).toBe(201);
      expect(made.body.character.reference_images).toEqual([url.split('?')[0]]);
      expect((await fetchMedia(made.body.character.reference_images[0])).status).toBe(403);
    });
  });

  describe('deleting', () => {
    it('a content item: its media answer 404 right after the delete and the files are gone', async () => {
      const character = await newCharacter('Short-lived item');
      const item = await approvedItem(character);
      const mediaUrl = item.media[0].url as string;
      expect((await fetchMedia(mediaUrl)).status).toBe(200);
      expect(existsSync(stored(mediaUrl))).toBe(true);

      const res = await api(server).delete(`/content/${item.id}`).set(user.auth);
      expect(res.status).toBe(204);
      expect((await fetchMedia(mediaUrl)).status).toBe(404);
      expect(existsSync(stored(mediaUrl))).toBe(false);
      expect((await api(server).get(`/content/${item.id}`).set(user.auth)).status).toBe(404);
      expect((await api(server).delete(`/content/${item.id}`).set(user.auth)).status).toBe(404);
    });

    it('a character: its reference images and its content media answer 404 right after the delete and the files are gone', async () => {
      const character = await newCharacter('Gone');
      const { url: refUrl } = await uploadImage(character, 4);
      const item = await approvedItem(character);
      const mediaUrl = item.media[0].url as string;
      for (const url of [refUrl, mediaUrl]) {
        expect((await fetchMedia(url)).status).toBe(200);
        expect(existsSync(stored(url))).toBe(true);
      }

      expect((await api(server).delete(`/characters/${character}`).set(user.auth)).status).toBe(204);
      for (const url of [refUrl, mediaUrl]) {
        const res = await fetchMedia(url);
        expect([url, res.status]).toEqual([url, 404]);
        expect(res.headers.get('cache-control') ?? '').not.toMatch(/public|immutable/);
        expect(existsSync(stored(url))).toBe(false);
      }
      // And unsigned, as before the delete: 403, saying nothing.
      expect((await fetch(`${origin()}${new URL(mediaUrl).pathname}`)).status).toBe(403);
    });
  });

  describe('publishing', () => {
    it('a published post’s media is fetched by the platform through a signed URL that lives at least a day', async () => {
      const fake = fakes.instagram;
      // The real OAuth round trip against the Instagram fake.
      const authUrl = await api(server).get('/integrations/instagram/auth-url').query({ redirect: '/x' }).set(user.auth);
      expect(authUrl.status).toBe(200);
      const consent = await fetch(authUrl.body.url as string, { redirect: 'manual' });
      const callback = new URL(consent.headers.get('location')!);
      const back = await fetch(`${origin()}${callback.pathname}${callback.search}`, { redirect: 'manual' });
      expect(back.headers.get('location')).toBe(`${APP_URL}/x?connected=instagram`);

      const character = await newCharacter('Poster');
      const item = await approvedItem(character);
      const file = readFileSync(stored(item.media[0].url as string));
      fake.reset();
      const scheduled = await api(server).post(`/content/${item.id}/schedule`).set(user.auth).send({ scheduled_at: new Date(Date.now() + 3600_000).toISOString(), platforms: ['instagram'] });
      expect(scheduled.status).toBe(201);
      const sentAt = Math.floor(Date.now() / 1000);
      const res = await api(server).post(`/schedule/${scheduled.body.scheduled_posts[0].id}/publish-now`).set(user.auth);
      expect(res.status).toBe(200);
      expect(res.body.scheduled_post.status).toBe('published');

      const fetches = await waitFor(async () => (fake.mediaFetches.length > 0 ? fake.mediaFetches : undefined), 10_000, 'the platform to fetch the media');
      expect(fetches).toHaveLength(1);
      const [fetched] = fetches;
      const given = new URL(fetched.url);
      expect(given.pathname).toBe(new URL(item.media[0].url as string).pathname);
      expect(given.searchParams.get('signature')).toMatch(/^[\w-]{43}$/);
      expect(Number(given.searchParams.get('expires')) - sentAt).toBeGreaterThanOrEqual(DAY);
      expect(fetched).toMatchObject({ status: 200, contentType: 'image/png', nosniff: true });
      expect(fetched.cacheControl).toMatch(/^private, max-age=\d+$/);
      expect(fetched.bytes.equals(file)).toBe(true);
    });
  });
});
