import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { api, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

/** A small picture whose pixels depend on `seed`, so different seeds are different images. */
async function makeImage(seed: number, format: 'png' | 'jpeg' | 'webp' = 'png', width = 48, height = 40): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * (seed + 3) * 7919 + seed * 31) % 256;
  const img = sharp(raw, { raw: { width, height, channels: 3 } });
  return (format === 'png' ? img.png() : format === 'jpeg' ? img.jpeg() : img.webp()).toBuffer();
}

const CHARACTER_KEYS = [
  'appearance', 'autopilot', 'content_count', 'created_at', 'face_consistency_tier', 'face_embedding_updated_at', 'follower_count',
  'id', 'identity', 'is_default', 'last_post_date', 'lora_training_status', 'name', 'niche', 'personality', 'reference_images',
  'settings', 'style', 'talking_head_enabled', 'timezone', 'timezone_source', 'updated_at',
].sort();

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('characters', () => {
  let backing: Backing;
  let server: TestServer;
  let owner: TestUser;
  let intruder: TestUser;
  let admin: { Authorization: string };

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { RUN_JOBS_IN_API: 'true' });
    admin = await loginAdmin(server);
    owner = await registerUser(server);
    intruder = await registerUser(server);
    // Agency: a higher request rate and character limit, so the many calls below are not throttled.
    await setPlan(server, admin, owner.workspace.id, 'agency');
    await setPlan(server, admin, intruder.workspace.id, 'agency');
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  const create = (user: TestUser, body: Record<string, unknown>, base = '/characters') => api(server).post(base).set(user.auth).send(body);
  const upload = (user: TestUser, id: string, file: Buffer, opts: { part?: string; filename?: string; contentType?: string; type?: string; base?: string } = {}) => {
    const req = api(server).post(`${opts.base ?? '/characters'}/${id}/reference-images`).set(user.auth);
    if (opts.type !== undefined) void req.field('type', opts.type);
    return req.attach(opts.part ?? 'file', file, { filename: opts.filename ?? 'face.png', contentType: opts.contentType ?? 'image/png' });
  };
  /** Our media URLs name the configured public host; fetch them from the test server instead. */
  // Media URLs are signed (path and query); the worker may sign with another PUBLIC_URL, so ask this server.
  const fetchMedia = (url: string) => fetch(new URL(`${new URL(url).pathname}${new URL(url).search}`, server.url));
  /** A signed URL without its signature: reads minutes apart sign the same file with another expiry. */
  const bare = (urls: string[]) => urls.map((u) => u.split('?')[0]);
  const jobDone = (user: TestUser, jobId: string) =>
    waitFor(async () => {
      const res = await api(server).get(`/jobs/${jobId}`).set(user.auth);
      return ['completed', 'failed'].includes(res.body.job?.status) ? res.body.job : null;
    }, 20_000, `job ${jobId}`);

  describe('create, read, list', () => {
    it('creates a character with every interface field and the documented defaults', async () => {
      const res = await create(owner, {
        name: '  Mia Costa  ',
        niche: 'travel',
        appearance: { age_range: '25-30', aesthetic: 'boho' },
        identity: { location: 'Lisbon', occupation: 'photographer' },
        personality: { tone: 'warm' },
        style: { presets: ['golden-hour', 'film'] },
        settings: { autopilot: true },
        talking_head_enabled: true,
        reference_images: ['https://cdn.example.com/a.jpg'],
      });
      expect(res.status).toBe(201);
      const c = res.body.character;
      expect(Object.keys(c).sort()).toEqual(CHARACTER_KEYS);
      expect(c).toMatchObject({
        name: 'Mia Costa',
        niche: 'travel',
        reference_images: ['https://cdn.example.com/a.jpg'],
        autopilot: true,
        face_consistency_tier: 'ip_adapter',
        lora_training_status: 'none',
        content_count: 0,
        last_post_date: null,
        follower_count: 0,
        is_default: false,
        appearance: { age_range: '25-30', aesthetic: 'boho' },
        identity: { location: 'Lisbon', occupation: 'photographer' },
        personality: { tone: 'warm' },
        style: { presets: ['golden-hour', 'film'] },
        settings: { autopilot: true },
        talking_head_enabled: true,
        // Lisbon names a zone: the character shows the zone its posts use and why.
        timezone: 'Europe/Lisbon',
        timezone_source: 'location',
        face_embedding_updated_at: null,
      });
      expect(c.id).toMatch(/^char_[0-9A-Z]{26}$/);
      expect(c.created_at).toMatch(ISO);
      expect(c.updated_at).toMatch(ISO);
      expect(JSON.stringify(res.body)).not.toMatch(/embedding"\s*:\s*\[/);

      const got = await api(server).get(`/characters/${c.id}`).set(owner.auth);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ character: c });
      const alias = await api(server).get(`/influencers/${c.id}`).set(owner.auth);
      expect(alias.status).toBe(200);
      expect(alias.body).toEqual({ character: c });
    });

    it('creates through the /influencers alias with only the required fields', async () => {
      const res = await create(owner, { name: 'Leo', niche: 'fitness' }, '/influencers');
      expect(res.status).toBe(201);
      expect(res.body.character).toMatchObject({ name: 'Leo', niche: 'fitness', autopilot: false, talking_head_enabled: false, reference_images: [], style: { presets: [] } });
    });

    it('lists newest first with paging, on both paths alike', async () => {
      const user = await registerUser(server);
      const ids: string[] = [];
      for (const name of ['A', 'B', 'C']) ids.push((await create(user, { name, niche: 'x' })).body.character.id);
      const first = await api(server).get('/characters?page=1&page_size=2').set(user.auth);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ page: 1, page_size: 2, total: 3 });
      expect(first.body.characters.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
      const second = await api(server).get('/influencers?page=2&page_size=2').set(user.auth);
      expect(second.body.characters.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
      const all = await api(server).get('/influencers').set(user.auth);
      expect(all.body).toEqual(await api(server).get('/characters').set(user.auth).then((r) => r.body));
      expect(all.body.page_size).toBe(20);
      const bad = await api(server).get('/characters?page_size=1000').set(user.auth);
      expect(bad.status).toBe(400);
      // Another workspace sees none of them.
      const other = await api(server).get('/characters').set(intruder.auth);
      expect(other.body.characters.map((c: { id: string }) => c.id)).not.toContain(ids[0]);
    });

    it('lists each character in exactly the body GET answers for it (the list reads its own columns)', async () => {
      const user = await registerUser(server);
      const bare = (await create(user, { name: 'Bare', niche: 'x' })).body.character.id;
      const full = (await create(user, {
        name: 'Full', niche: 'travel', reference_images: ['https://img.example/a.png', 'https://img.example/b.png'],
        appearance: { age_range: '25-30', aesthetic: 'film' }, identity: { location: 'Porto', occupation: 'guide' },
        personality: { tone: 'warm' }, style: { presets: ['golden-hour', 'flat-lay'] }, settings: { autopilot: true },
      })).body.character.id;
      await api(server).patch(`/characters/${full}`).set(user.auth).send({ timezone: 'Asia/Tokyo' }).expect(200);
      await api(server).post(`/characters/${full}/default`).set(user.auth).expect(200);
      const listed = await api(server).get('/characters').set(user.auth);
      expect(listed.status).toBe(200);
      for (const id of [bare, full]) {
        const got = await api(server).get(`/characters/${id}`).set(user.auth);
        expect(listed.body.characters.find((c: { id: string }) => c.id === id)).toEqual(got.body.character);
      }
      expect(listed.body.characters.map((c: { id: string }) => c.id)).toEqual([full, bare]);
    });

    it.each([
      ['an unknown field', { name: 'A', niche: 'b', mood: 'x' }, 'mood'],
      ['an unknown nested field', { name: 'A', niche: 'b', appearance: { eyes: 'blue' } }, 'appearance.eyes'],
      ['a missing name', { niche: 'b' }, 'name'],
      ['a blank name', { name: '   ', niche: 'b' }, 'name'],
      ['a missing niche', { name: 'A' }, 'niche'],
      ['a name over 80 characters', { name: 'x'.repeat(81), niche: 'b' }, 'name'],
      ['a null name', { name: null, niche: 'b' }, 'name'],
      ['a section that is not an object', { name: 'A', niche: 'b', appearance: ['x'] }, 'appearance'],
      ['a non-boolean autopilot', { name: 'A', niche: 'b', settings: { autopilot: 'yes' } }, 'settings.autopilot'],
      ['a non-http reference image', { name: 'A', niche: 'b', reference_images: ['ftp://x.example/a.png'] }, 'reference_images'],
      ['more than 10 reference images', { name: 'A', niche: 'b', reference_images: Array.from({ length: 11 }, (_, i) => `https://x.example/${i}.png`) }, 'reference_images'],
      ['a timezone that is not an IANA zone', { name: 'A', niche: 'b', timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    ])('refuses %s with 400', async (_what, body, field) => {
      const res = await create(owner, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('takes a timezone on create as PATCH does, in its canonical spelling', async () => {
      const user = await registerUser(server);
      const res = await create(user, { name: 'Zoned', niche: 'travel', timezone: 'europe/paris' });
      expect([res.status, res.body.character?.timezone, res.body.character?.timezone_source]).toEqual([201, 'Europe/Paris', 'set']);
      const read = await api(server).get(`/characters/${res.body.character.id}`).set(user.auth);
      expect([read.body.character.timezone, read.body.character.timezone_source]).toEqual(['Europe/Paris', 'set']);
      // No zone of its own: the answer shows the zone in use (the default here) and says where it comes from.
      const none = await create(user, { name: 'Unzoned', niche: 'travel', timezone: null });
      expect([none.status, none.body.character?.timezone, none.body.character?.timezone_source]).toEqual([201, 'America/New_York', 'default']);
    });

    it('answers 401 without a session on every route', async () => {
      const id = missingId('char');
      const calls = [
        api(server).post('/characters').send({ name: 'A', niche: 'b' }),
        api(server).get('/characters'),
        api(server).get(`/influencers/${id}`),
        api(server).patch(`/characters/${id}`).send({ name: 'x' }),
        api(server).post(`/characters/${id}/default`),
        api(server).post(`/characters/${id}/duplicate`),
        api(server).delete(`/characters/${id}`),
        api(server).post(`/characters/${id}/reference-images`).attach('file', Buffer.from('x'), 'a.png'),
        api(server).get('/characters').set('Authorization', 'Bearer not-a-token'),
      ];
      for (const res of await Promise.all(calls)) {
        expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
      }
    });
  });

  describe('update, default, duplicate, delete', () => {
    it('patches any field plus an IANA timezone, merging sections', async () => {
      const { id } = (await create(owner, { name: 'Ana', niche: 'food', appearance: { age_range: '30-35', aesthetic: 'clean' }, settings: { autopilot: false } })).body.character;
      const res = await api(server).patch(`/influencers/${id}`).set(owner.auth).send({
        niche: 'vegan food', appearance: { aesthetic: 'rustic' }, settings: { autopilot: true }, timezone: 'europe/lisbon', style: { presets: ['flat-lay'] },
      });
      expect(res.status).toBe(200);
      expect(res.body.character).toMatchObject({
        id, name: 'Ana', niche: 'vegan food', appearance: { age_range: '30-35', aesthetic: 'rustic' }, autopilot: true, settings: { autopilot: true },
        timezone: 'Europe/Lisbon', timezone_source: 'set', style: { presets: ['flat-lay'] },
      });
      expect(new Date(res.body.character.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(res.body.character.created_at).getTime());
      expect((await api(server).get(`/characters/${id}`).set(owner.auth)).body).toEqual(res.body);
      const cleared = await api(server).patch(`/characters/${id}`).set(owner.auth).send({ timezone: null });
      // Cleared, with no location: the app's default zone, said to be the default.
      expect(cleared.body.character).toMatchObject({ timezone: 'America/New_York', timezone_source: 'default' });

      for (const body of [{ timezone: 'Mars/Olympus_Mons' }, { timezone: 'not a zone' }, { name: null }, { name: '' }, { lora_training_status: 'ready' }, { is_default: true }]) {
        const bad = await api(server).patch(`/characters/${id}`).set(owner.auth).send(body);
        expect([JSON.stringify(body), bad.status, bad.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
      }
    });

    it('makes one character the default and unsets the previous one', async () => {
      const a = (await create(owner, { name: 'DefA', niche: 'x' })).body.character.id;
      const b = (await create(owner, { name: 'DefB', niche: 'x' })).body.character.id;
      const first = await api(server).post(`/characters/${a}/default`).set(owner.auth);
      expect(first.status).toBe(200);
      expect(first.body.character).toMatchObject({ id: a, is_default: true });
      const again = await api(server).post(`/influencers/${a}/default`).set(owner.auth);
      expect(again.body.character.is_default).toBe(true);
      const second = await api(server).post(`/influencers/${b}/default`).set(owner.auth);
      expect(second.body.character).toMatchObject({ id: b, is_default: true });
      expect((await api(server).get(`/characters/${a}`).set(owner.auth)).body.character.is_default).toBe(false);
      const list = await api(server).get('/characters?page_size=100').set(owner.auth);
      expect(list.body.characters.filter((c: { is_default: boolean }) => c.is_default).map((c: { id: string }) => c.id)).toEqual([b]);
    });

    it('duplicates with "(copy)", reset counters and copied reference images', async () => {
      const src = (await create(owner, { name: 'Orig', niche: 'art', identity: { location: 'Oslo' }, reference_images: ['https://x.example/ext.png'] })).body.character;
      await api(server).post(`/characters/${src.id}/default`).set(owner.auth).expect(200);
      const image = await makeImage(11);
      const up = await upload(owner, src.id, image);
      expect(up.status).toBe(201);
      await jobDone(owner, up.body.job.id);

      const res = await api(server).post(`/influencers/${src.id}/duplicate`).set(owner.auth);
      expect(res.status).toBe(201);
      const copy = res.body.character;
      expect(copy).toMatchObject({ name: 'Orig (copy)', niche: 'art', identity: { location: 'Oslo', occupation: null }, is_default: false, lora_training_status: 'none', content_count: 0, follower_count: 0, last_post_date: null });
      expect(copy.id).not.toBe(src.id);
      expect(copy.reference_images).toHaveLength(2);
      expect(copy.reference_images[0]).toBe('https://x.example/ext.png');
      expect(copy.reference_images[1]).not.toBe(up.body.reference_image.url);
      expect(copy.reference_images[1]).toContain(copy.id);
      const served = await fetchMedia(copy.reference_images[1]);
      expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true);
      // The copy keeps its own bytes when the original goes.
      await api(server).delete(`/characters/${src.id}`).set(owner.auth).expect(204);
      expect((await fetchMedia(copy.reference_images[1])).status).toBe(200);
      expect((await fetchMedia(up.body.reference_image.url)).status).toBe(404);
    });

    it('deletes a character: 204, then 404 everywhere', async () => {
      const { id } = (await create(owner, { name: 'Gone', niche: 'x' })).body.character;
      const res = await api(server).delete(`/influencers/${id}`).set(owner.auth);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await api(server).get(`/characters/${id}`).set(owner.auth)).status).toBe(404);
      expect((await api(server).delete(`/characters/${id}`).set(owner.auth)).status).toBe(404);
    });

    it('answers 404 for another workspace’s character on every id route, and changes nothing', async () => {
      const victim = (await create(owner, { name: 'Victim', niche: 'x' })).body.character;
      const image = await makeImage(5);
      const routes = (id: string) => [
        () => api(server).get(`/characters/${id}`).set(intruder.auth),
        () => api(server).get(`/influencers/${id}`).set(intruder.auth),
        () => api(server).patch(`/characters/${id}`).set(intruder.auth).send({ name: 'Pwned' }),
        () => api(server).post(`/characters/${id}/default`).set(intruder.auth),
        () => api(server).post(`/characters/${id}/duplicate`).set(intruder.auth),
        () => api(server).delete(`/characters/${id}`).set(intruder.auth),
        () => upload(intruder, id, image),
        () => upload(intruder, id, image, { base: '/influencers' }),
        () => upload(intruder, id, Buffer.from('not an image'), { filename: 'x.png' }),
      ];
      for (const id of [victim.id, missingId('char'), 'char_123', 'cnt_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope']) {
        for (const [i, call] of routes(id).entries()) {
          const res = await call();
          expect([id, i, res.status, res.body.code]).toEqual([id, i, 404, 'not_found']);
        }
      }
      const after = await api(server).get(`/characters/${victim.id}`).set(owner.auth);
      expect(after.body.character).toEqual({ ...victim });
      const theirs = await api(server).get('/characters?page_size=100').set(intruder.auth);
      expect(theirs.body.characters.some((c: { name: string }) => c.name.startsWith('Victim'))).toBe(false);
    });
  });

  describe('plan character limit', () => {
    it('refuses the 4th character and a duplicate past the Starter limit with 403', async () => {
      const starter = await registerUser(server);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await create(starter, { name: `S${i}`, niche: 'x' });
        expect(res.status).toBe(201);
        ids.push(res.body.character.id);
      }
      const fourth = await create(starter, { name: 'S4', niche: 'x' }, '/influencers');
      expect(fourth.status).toBe(403);
      expect(fourth.body).toMatchObject({ code: 'character_limit_reached', details: { plan: 'starter', limit: 3, count: 3 } });
      const dup = await api(server).post(`/characters/${ids[0]}/duplicate`).set(starter.auth);
      expect([dup.status, dup.body.code]).toEqual([403, 'character_limit_reached']);
      // A foreign id stays 404 even when the workspace is full.
      const foreign = await api(server).post(`/characters/${missingId('char')}/duplicate`).set(starter.auth);
      expect(foreign.status).toBe(404);
      await api(server).delete(`/characters/${ids[2]}`).set(starter.auth).expect(204);
      expect((await api(server).post(`/characters/${ids[0]}/duplicate`).set(starter.auth)).status).toBe(201);
      expect((await api(server).get('/characters').set(starter.auth)).body.total).toBe(3);
    });

    it('holds under concurrent creation', async () => {
      const racer = await registerUser(server);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => create(racer, { name: `R${i}`, niche: 'x' })));
      expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
      expect(answers.filter((r) => r.status === 403 && r.body.code === 'character_limit_reached')).toHaveLength(5);
      expect((await api(server).get('/characters').set(racer.auth)).body.total).toBe(3);
    });
  });

  describe('reference images', () => {
    let charId: string;
    beforeAll(async () => {
      charId = (await create(owner, { name: 'Faces', niche: 'portrait' })).body.character.id;
    });

    it('accepts each part name, stores the image, serves it back and recomputes the embedding', async () => {
      const images = [await makeImage(1, 'png'), await makeImage(2, 'jpeg'), await makeImage(3, 'webp', 30, 50)];
      const parts = [
        { part: 'file', filename: 'a.png', contentType: 'image/png', base: '/characters' },
        { part: 'image', filename: 'b.jpg', contentType: 'image/jpeg', base: '/influencers' },
        // The declared type is ignored: the bytes decide.
        { part: 'reference_image', filename: 'c.bin', contentType: 'application/octet-stream', base: '/characters', type: 'primary' },
      ];
      const seen: string[] = [];
      let lastEmbeddingAt: string | null = null;
      for (const [i, opts] of parts.entries()) {
        const res = await upload(owner, charId, images[i], opts);
        expect(res.status).toBe(201);
        const { reference_image: ref, character, job } = res.body;
        expect(Object.keys(res.body).sort()).toEqual(['character', 'job', 'reference_image']);
        expect(Object.keys(ref).sort()).toEqual(['created_at', 'height', 'id', 'type', 'url', 'width']);
        expect(ref.id).toMatch(/^ref_[0-9A-Z]{26}$/);
        expect(ref.type).toBe(i === 0 ? 'primary' : i === 1 ? 'reference' : 'primary');
        expect([ref.width, ref.height]).toEqual(i === 2 ? [30, 50] : [48, 40]);
        expect(ref.url).toMatch(new RegExp(`/api/v1/media/characters/${charId}/${ref.id}\\.(png|jpg|webp)\\?expires=\\d+&signature=[\\w-]+$`));
        seen.push(ref.url);
        expect(bare(character.reference_images)).toEqual(bare(seen));
        expect(job).toMatchObject({ job_type: 'recompute_face_embedding', status: 'pending', character_id: charId, progress: 0 });

        const served = await fetchMedia(ref.url);
        expect(served.status).toBe(200);
        expect(served.headers.get('content-type')).toBe(['image/png', 'image/jpeg', 'image/webp'][i]);
        expect(served.headers.get('x-content-type-options')).toBe('nosniff');
        // Private media: never a shared cache, and no longer than the signed URL lives.
        expect(served.headers.get('cache-control')).toMatch(/^private, max-age=\d{4}$/);
        expect(Buffer.from(await served.arrayBuffer()).equals(images[i])).toBe(true);

        const done = await jobDone(owner, job.id);
        expect(done).toMatchObject({ status: 'completed', progress: 100, error: null, result: { reference_images: i + 1, embedded_images: 1, updated: true } });
        const now = (await api(server).get(`/characters/${charId}`).set(owner.auth)).body.character;
        expect(bare(now.reference_images)).toEqual(bare(seen));
        expect(now.face_embedding_updated_at).toMatch(ISO);
        if (lastEmbeddingAt) expect(now.face_embedding_updated_at > lastEmbeddingAt).toBe(true);
        lastEmbeddingAt = now.face_embedding_updated_at;
      }
    });

    it('drops removed uploads when PATCH shortens reference_images, and recomputes', async () => {
      const id = (await create(owner, { name: 'Trim', niche: 'x' })).body.character.id;
      const one = await upload(owner, id, await makeImage(21));
      const two = await upload(owner, id, await makeImage(22));
      await jobDone(owner, one.body.job.id);
      await jobDone(owner, two.body.job.id);
      const before = (await api(server).get(`/characters/${id}`).set(owner.auth)).body.character;
      const res = await api(server).patch(`/characters/${id}`).set(owner.auth).send({ reference_images: [two.body.reference_image.url] });
      expect(res.status).toBe(200);
      expect(bare(res.body.character.reference_images)).toEqual(bare([two.body.reference_image.url]));
      expect((await fetchMedia(one.body.reference_image.url)).status).toBe(404);
      await waitFor(async () => {
        const c = (await api(server).get(`/characters/${id}`).set(owner.auth)).body.character;
        return c.face_embedding_updated_at > before.face_embedding_updated_at;
      }, 20_000, 'embedding recomputed');
    });

    it('refuses a non-image with 415, whatever its name and declared type', async () => {
      for (const [file, name] of [[Buffer.from('hello, I am definitely a PNG'), 'x.png'], [Buffer.from('GIF89a\x01\x00\x01\x00'), 'y.gif']] as const) {
        const res = await upload(owner, charId, file, { filename: name, contentType: 'image/png' });
        expect([res.status, res.body.code]).toEqual([415, 'unsupported_media_type']);
      }
      const truncated = (await makeImage(9)).subarray(0, 12);
      const bad = await upload(owner, charId, truncated);
      expect([bad.status, bad.body.code]).toEqual([415, 'unsupported_media_type']);
    });

    it('refuses a file over 10 MiB with 413', async () => {
      const big = Buffer.concat([await makeImage(4), Buffer.alloc(10 * 1024 * 1024)]);
      const res = await upload(owner, charId, big);
      expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
    });

    it('refuses a missing file, a wrong part name, two files or a bad type with 400', async () => {
      const image = await makeImage(6);
      const noFile = await api(server).post(`/characters/${charId}/reference-images`).set(owner.auth).field('type', 'primary');
      const json = await api(server).post(`/characters/${charId}/reference-images`).set(owner.auth).send({});
      const wrongPart = await upload(owner, charId, image, { part: 'photo' });
      const two = await api(server).post(`/characters/${charId}/reference-images`).set(owner.auth)
        .attach('file', image, 'a.png').attach('image', image, 'b.png');
      const badType = await upload(owner, charId, image, { type: 'avatar' });
      const extraField = await api(server).post(`/characters/${charId}/reference-images`).set(owner.auth).field('caption', 'hi').attach('file', image, 'a.png');
      for (const res of [noFile, json, wrongPart, two, badType, extraField]) {
        expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
      }
      const after = (await api(server).get(`/characters/${charId}`).set(owner.auth)).body.character;
      expect(after.reference_images).toHaveLength(3);
    });

    it('refuses an upload past 10 reference images with 400', async () => {
      const full = (await create(owner, { name: 'Full', niche: 'x', reference_images: Array.from({ length: 10 }, (_, i) => `https://x.example/${i}.png`) })).body.character;
      const res = await upload(owner, full.id, await makeImage(8));
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
      expect((await api(server).get(`/characters/${full.id}`).set(owner.auth)).body.character.reference_images).toHaveLength(10);
    });

    it('refuses unsigned unknown or malformed media paths with 403, saying nothing (media URLs are signed)', async () => {
      const base = `http://127.0.0.1:${server.port}/api/v1/media`;
      for (const path of [`/characters/${charId}/ref_01ARZ3NDEKTSV4RRFFQ69G5FAV.png`, '/..%2F..%2Fsecrets.json', '/a/b.exe', '/x.png', '/characters/.hidden.png']) {
        const res = await fetch(`${base}${path}`);
        expect([path, res.status]).toEqual([path, 403]);
        expect(await res.json()).toMatchObject({ code: 'forbidden' });
      }
      // `%2e%2e` segments are dot segments to the URL parser: this one asks for /api/v1/secrets.json, no route.
      expect((await fetch(`${base}/characters/%2e%2e/%2e%2e/secrets.json`)).status).toBe(404);
    });
  });

  describe('public API', () => {
    it('creates and lists characters with an API key, with the product bodies', async () => {
      const agency = await registerUser(server);
      await setPlan(server, admin, agency.workspace.id, 'agency');
      const key = await api(server).post('/api-keys').set(agency.auth).send({ name: 'crm', scopes: ['characters:read', 'characters:write'] });
      expect(key.status).toBe(201);
      const readOnly = await api(server).post('/api-keys').set(agency.auth).send({ name: 'ro', scopes: ['characters:read'] });
      const keyAuth = { Authorization: `Bearer ${key.body.key}` };

      const created = await api(server).post('/public/characters').set(keyAuth).send({ name: 'Api', niche: 'tech', settings: { autopilot: true } });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body.character).sort()).toEqual(CHARACTER_KEYS);
      expect(created.body.character).toMatchObject({ name: 'Api', autopilot: true, lora_training_status: 'none' });
      const listed = await api(server).get('/public/characters').set({ Authorization: `Bearer ${readOnly.body.key}` });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual((await api(server).get('/characters').set(agency.auth)).body);

      const noScope = await api(server).post('/public/characters').set({ Authorization: `Bearer ${readOnly.body.key}` }).send({ name: 'X', niche: 'y' });
      expect([noScope.status, noScope.body.code]).toEqual([403, 'insufficient_scope']);
      const session = await api(server).get('/public/characters').set(agency.auth);
      expect([session.status, session.body.code]).toEqual([401, 'api_key_required']);
      const keyOnProduct = await api(server).get('/characters').set(keyAuth);
      expect([keyOnProduct.status, keyOnProduct.body.code]).toEqual([401, 'session_required']);
      const invalid = await api(server).post('/public/characters').set(keyAuth).send({ name: 'X', niche: 'y', extra: 1 });
      expect(invalid.status).toBe(400);
    });
  });
});
