import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Test } from 'supertest';
import { finishedJob, mediaBytes, probeStreams, toneWav } from '../helpers/media.js';
import { api, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

type Body = Record<string, any>;
const ENV = { RUN_JOBS_IN_API: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50', VOICE_PROVIDER: 'local' };

/** Voices through HTTP on the offline synthesiser (contract §11). */
describe('voice (offline synthesiser)', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };
  let owner: TestUser;
  let intruder: TestUser;
  let charId: string;

  const createCharacter = async (user: TestUser, name = 'Vera') => (await api(server).post('/characters').set(user.auth).send({ name, niche: 'travel' })).body.character.id as string;
  const balance = async (user: TestUser) => (await api(server).get('/billing/credits').set(user.auth)).body.balance as number;
  const ledger = async (user: TestUser) => (await api(server).get('/billing/ledger?page_size=100').set(user.auth)).body.entries as Body[];
  const fetchMedia = (url: string) => mediaBytes(server, url);
  const job = (user: TestUser, id: string) => finishedJob(server, user, id);
  const cloneUpload = (user: TestUser, id: string, files: Buffer[], fields: Record<string, string> = { name: 'Vera warm' }) => {
    const req = api(server).post(`/characters/${id}/voice-clone`).set(user.auth);
    for (const [k, v] of Object.entries(fields)) void req.field(k, v);
    files.forEach((f, i) => void req.attach('samples', f, { filename: `s${i}.wav`, contentType: 'audio/wav' }));
    return req;
  };

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { ...ENV, OUTBOUND_ALLOW_HOSTS: '' });
    admin = await loginAdmin(server);
    [owner, intruder] = await Promise.all([registerUser(server), registerUser(server)]);
    await grantCredits(server, admin, owner.workspace.id, 1000);
    charId = await createCharacter(owner);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('lists the library’s premade voices; a character speaks with the default one and the default settings until told', async () => {
    const voices = (await api(server).get('/voices').set(owner.auth)).body.voices as Body[];
    expect(voices.length).toBeGreaterThanOrEqual(2);
    expect(voices.every((v) => v.category === 'premade' && v.character_id === null && typeof v.voice_id === 'string')).toBe(true);
    const voice = (await api(server).get(`/characters/${charId}/voice`).set(owner.auth)).body.voice as Body;
    expect(voice).toMatchObject({ category: 'premade', status: 'none', sample_count: 0, error: null, created_at: null });
    expect(voices.map((v) => v.voice_id)).toContain(voice.voice_id);
    expect(voice.settings).toMatchObject({ voice_id: voice.voice_id, stability: 0.5, similarity_boost: 0.75, style: 0, use_speaker_boost: true });
    const settings = await api(server).get(`/characters/${charId}/voice/settings`).set(owner.auth);
    expect(settings.body.settings).toEqual(voice.settings);
  });

  it('PUT settings is a partial update; an unknown voice_id and out-of-range values are 400', async () => {
    const library = (await api(server).get('/voices').set(owner.auth)).body.voices as Body[];
    const other = library[library.length - 1].voice_id as string;
    const res = await api(server).put(`/characters/${charId}/voice/settings`).set(owner.auth).send({ voice_id: other, stability: 0.3 });
    expect(res.status).toBe(200);
    expect(res.body.settings).toMatchObject({ voice_id: other, stability: 0.3, similarity_boost: 0.75, style: 0, use_speaker_boost: true });
    const again = await api(server).put(`/characters/${charId}/voice/settings`).set(owner.auth).send({ style: 0.2 });
    expect(again.body.settings).toMatchObject({ voice_id: other, stability: 0.3, style: 0.2 });
    for (const body of [{ voice_id: 'no-such-voice' }, { stability: 1.5 }, { style: -0.1 }, { use_speaker_boost: 'yes' }, { voice_id: null }, { extra: 1 }]) {
      const bad = await api(server).put(`/characters/${charId}/voice/settings`).set(owner.auth).send(body);
      expect([JSON.stringify(body), bad.status, bad.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
    }
  });

  it('previews speech that decodes as audio of a plausible length for its text, charging 1 credit', async () => {
    const before = await balance(owner);
    for (const text of ['Hello there.', 'Good morning, this is a short voice preview for the new persona.', 'Ready for the run? We start at seven, by the river, with a warm-up of ten minutes and then three easy laps.']) {
      const res = await api(server).post(`/characters/${charId}/voice/preview`).set(owner.auth).send({ text });
      expect(res.status).toBe(201);
      const audio = res.body.audio as Body;
      expect(audio).toMatchObject({ id: expect.stringMatching(/^aud_[0-9A-Z]{26}$/), status: 'completed', characters: text.length, credits_charged: 1 });
      const streams = probeStreams(await fetchMedia(audio.url as string));
      expect(streams).toHaveLength(1);
      expect(streams[0].codec_type).toBe('audio');
      const expected = text.length / 15;
      expect(Number(streams[0].duration)).toBeGreaterThan(expected * 0.6);
      expect(Number(streams[0].duration)).toBeLessThan(expected * 1.4);
      expect(Math.abs(audio.duration_seconds - Number(streams[0].duration))).toBeLessThan(0.2);
    }
    expect(await balance(owner)).toBe(before - 3);
    const tooLong = await api(server).post(`/characters/${charId}/voice/preview`).set(owner.auth).send({ text: 'x'.repeat(201) });
    expect([tooLong.status, tooLong.body.code]).toEqual([400, 'validation_failed']);
  });

  it('generates speech as a job, 1 credit per started 100 characters; the clip is read back with its audio', async () => {
    const before = await balance(owner);
    const text = 'A longer script. '.repeat(12).trim();
    const res = await api(server).post(`/characters/${charId}/voice/generate`).set(owner.auth).send({ text, format: 'wav' });
    expect(res.status).toBe(202);
    expect(res.body.job).toMatchObject({ job_type: 'generate_speech', status: 'pending' });
    expect(res.body.audio).toMatchObject({ status: 'queued', url: null, characters: text.length, credits_charged: 3 });
    expect(await balance(owner)).toBe(before - 3);
    expect((await job(owner, res.body.job.id)).status).toBe('completed');
    const clip = await api(server).get(`/characters/${charId}/voice/audio/${res.body.audio.id}`).set(owner.auth);
    expect(clip.body.audio).toMatchObject({ status: 'completed', format: 'wav' });
    expect(probeStreams(await fetchMedia(clip.body.audio.url as string))[0].codec_name).toBe('pcm_s16le');
    expect((await api(server).get(`/characters/${charId}/voice/audio/${res.body.audio.id}`).set(intruder.auth)).status).toBe(404);
  });

  it('lists the character’s clips newest first with an excerpt of their text, its duration and a signed URL, paged; 404 for another workspace', async () => {
    const long = `${'A clip with a long script to cut short in the list. '.repeat(3).trim()}`;
    const queued = await api(server).post(`/characters/${charId}/voice/generate`).set(owner.auth).send({ text: long });
    expect((await job(owner, queued.body.job.id)).status).toBe('completed');
    const res = await api(server).get(`/characters/${charId}/voice/audio?page_size=2`).set(owner.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, page_size: 2, total: 5 });
    const [newest, next] = res.body.clips as Body[];
    expect(Object.keys(newest).sort()).toEqual(['characters', 'created_at', 'credits_charged', 'duration_seconds', 'format', 'id', 'job_id', 'kind', 'status', 'text_excerpt', 'url'].sort());
    expect(newest).toMatchObject({ id: queued.body.audio.id, kind: 'speech', status: 'completed', format: 'mp3', characters: long.length, duration_seconds: expect.any(Number) });
    expect(Array.from(newest.text_excerpt as string)).toHaveLength(80);
    expect(long.startsWith((newest.text_excerpt as string).slice(0, -1))).toBe(true);
    expect(probeStreams(await fetchMedia(newest.url as string))[0].codec_name).toBe('mp3');
    expect(next).toMatchObject({ kind: 'speech', format: 'wav', status: 'completed' });
    const last = await api(server).get(`/characters/${charId}/voice/audio?page=3&page_size=2`).set(owner.auth);
    expect(last.body.clips).toEqual([expect.objectContaining({ kind: 'preview', text_excerpt: 'Hello there.', status: 'completed' })]);
    const all = (await api(server).get(`/characters/${charId}/voice/audio`).set(owner.auth)).body.clips as Body[];
    const times = all.map((c) => Date.parse(c.created_at as string));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect((await api(server).get(`/influencers/${charId}/voice/audio`).set(owner.auth)).body.total).toBe(5);
    for (const query of ['page=0', 'page_size=101', 'page=x', 'page=1000001']) {
      const bad = await api(server).get(`/characters/${charId}/voice/audio?${query}`).set(owner.auth);
      expect([query, bad.status, bad.body.code]).toEqual([query, 400, 'validation_failed']);
    }
    const foreign = await api(server).get(`/characters/${charId}/voice/audio`).set(intruder.auth);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
    const own = await createCharacter(intruder, 'Empty');
    expect((await api(server).get(`/characters/${own}/voice/audio`).set(intruder.auth)).body).toEqual({ clips: [], page: 1, page_size: 20, total: 0 });
  });

  it('answers 404 for another workspace’s clip id tried under the intruder’s own character, and for a clip of another character of the same workspace', async () => {
    const clipId = ((await api(server).get(`/characters/${charId}/voice/audio`).set(owner.auth)).body.clips as Body[])[0].id as string;
    const own = await createCharacter(intruder, 'Nosy');
    for (const path of [`/characters/${own}/voice/audio/${clipId}`, `/influencers/${own}/voice/audio/${clipId}`]) {
      const res = await api(server).get(path).set(intruder.auth);
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'not_found']);
    }
    const sibling = await createCharacter(owner, 'Sibling');
    const crossed = await api(server).get(`/characters/${sibling}/voice/audio/${clipId}`).set(owner.auth);
    expect([crossed.status, crossed.body.code]).toEqual([404, 'not_found']);
    expect((await api(server).get(`/characters/${charId}/voice/audio/${clipId}`).set(owner.auth)).status).toBe(200);
  });

  it('speaks text that renders as near-silence, and refuses at validation what it will not speak: never a 5xx (a sample of the property spec’s classes)', async () => {
    const spoken = ['.', '\ue000', '\ue000\uf8ff', '…', '\u200b', '?!', '\u{f0000}', '😀👍🏽', 'שלום', '\u0301\u0301', '漢字', '\ufffe', 'a\tb\nc'];
    for (const text of spoken) {
      const res = await api(server).post(`/characters/${charId}/voice/preview`).set(owner.auth).send({ text });
      expect([text, res.status]).toEqual([text, 201]);
      expect(probeStreams(await fetchMedia(res.body.audio.url as string))[0].codec_name).toBe('mp3');
    }
    const generated = await api(server).post(`/characters/${charId}/voice/generate`).set(owner.auth).send({ text: '\ue000'.repeat(5000) });
    expect(generated.status).toBe(202);
    expect(await job(owner, generated.body.job.id)).toMatchObject({ status: 'completed', error: null });
    for (const text of ['', '   ', '\u00a0\u3000', 'x\u0000', 'x\u001b', 'x\u0085', 'x'.repeat(201)]) {
      const res = await api(server).post(`/characters/${charId}/voice/preview`).set(owner.auth).send({ text });
      expect([JSON.stringify(text).slice(0, 20), res.status, res.body.code]).toEqual([JSON.stringify(text).slice(0, 20), 400, 'validation_failed']);
    }
  });

  it('clones a voice from uploaded samples: charged 50, ready as the character’s voice, listed for this workspace only', async () => {
    const before = await balance(owner);
    const res = await cloneUpload(owner, charId, [toneWav(140, 2, { pulseHz: 4 }), toneWav(150, 2, { pulseHz: 4 })]);
    expect(res.status).toBe(202);
    expect(res.body.voice).toMatchObject({ status: 'cloning', sample_count: 2, name: null });
    expect(res.body.job).toMatchObject({ job_type: 'clone_voice' });
    expect(await balance(owner)).toBe(before - 50);
    expect((await ledger(owner))[0]).toMatchObject({ amount: -50, reason: 'voice_clone', ref_id: res.body.job.id });
    expect((await job(owner, res.body.job.id)).status).toBe('completed');
    const voice = (await api(server).get(`/characters/${charId}/voice`).set(owner.auth)).body.voice as Body;
    expect(voice).toMatchObject({ status: 'ready', category: 'cloned', name: 'Vera warm', sample_count: 2 });
    expect(voice.settings.voice_id).toBe(voice.voice_id);
    const mine = ((await api(server).get('/voices').set(owner.auth)).body.voices as Body[]).filter((v) => v.category === 'cloned');
    expect(mine).toEqual([expect.objectContaining({ voice_id: voice.voice_id, character_id: charId })]);
    const theirs = ((await api(server).get('/voices').set(intruder.auth)).body.voices as Body[]).filter((v) => v.category === 'cloned');
    expect(theirs).toEqual([]);
    const stranger = await createCharacter(intruder, 'Other');
    const borrowed = await api(server).put(`/characters/${stranger}/voice/settings`).set(intruder.auth).send({ voice_id: voice.voice_id });
    expect([borrowed.status, borrowed.body.code]).toEqual([400, 'validation_failed']);
    // The offline synthesiser could speak any well-formed clone id, but only our records say whose one is.
    const madeUp = voice.voice_id.replace(/[0-9a-f]{8}$/, 'deadbeef');
    for (const user of [owner, intruder]) {
      const id = user === owner ? charId : stranger;
      const res = await api(server).put(`/characters/${id}/voice/settings`).set(user.auth).send({ voice_id: madeUp });
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    }
    const spoken = await api(server).post(`/characters/${charId}/voice/preview`).set(owner.auth).send({ text: 'Now in my own voice.' });
    expect(spoken.status).toBe(201);
  });

  it('refuses samples that are not audio by their bytes (415), URLs it will not fetch (400) and no samples (400), writing nothing', async () => {
    const id = await createCharacter(owner, 'Refused');
    const before = await balance(owner);
    const notAudio = await cloneUpload(owner, id, [Buffer.from('this is not audio at all, only text')]);
    expect([notAudio.status, notAudio.body.code]).toEqual([415, 'unsupported_media_type']);
    for (const url of ['http://127.0.0.1:9/voice.wav', 'http://169.254.169.254/latest/meta-data', 'ftp://example.com/a.wav']) {
      const res = await api(server).post(`/characters/${id}/voice-clone`).set(owner.auth).send({ name: 'X', sample_urls: [url] });
      expect([url, res.status, res.body.code]).toEqual([url, 400, 'validation_failed']);
    }
    const none = await api(server).post(`/characters/${id}/voice-clone`).set(owner.auth).send({ name: 'X' });
    expect([none.status, none.body.code]).toEqual([400, 'validation_failed']);
    const wrongPart = await api(server).post(`/characters/${id}/voice-clone`).set(owner.auth).field('name', 'X').attach('audio', toneWav(120, 1, { pulseHz: 4 }), 'a.wav');
    expect([wrongPart.status, wrongPart.body.code]).toEqual([400, 'validation_failed']);
    expect(await balance(owner)).toBe(before);
    expect((await api(server).get(`/characters/${id}/voice`).set(owner.auth)).body.voice).toMatchObject({ status: 'none', sample_count: 0 });
  });

  it('refuses a clone the workspace cannot pay (402) with nothing written', async () => {
    const poor = await registerUser(server);
    const id = await createCharacter(poor, 'Poor');
    const spend = await api(server).post(`/characters/${id}/voice/generate`).set(poor.auth).send({ text: 'Hello there. '.repeat(400).slice(0, 5000) });
    expect(spend.status).toBe(202);
    expect(await balance(poor)).toBe(0);
    const res = await cloneUpload(poor, id, [toneWav(130, 1, { pulseHz: 4 })]);
    expect([res.status, res.body.code]).toEqual([402, 'insufficient_credits']);
    expect((await api(server).get(`/characters/${id}/voice`).set(poor.auth)).body.voice).toMatchObject({ status: 'none', sample_count: 0 });
    const preview = await api(server).post(`/characters/${id}/voice/preview`).set(poor.auth).send({ text: 'Hi' });
    expect([preview.status, preview.body.code]).toEqual([402, 'insufficient_credits']);
  });

  it('answers 404 for another workspace’s character on every character route, and refuses API keys', async () => {
    const calls: Array<[string, (u: TestUser) => Test]> = [
      ['GET voice', (u) => api(server).get(`/characters/${charId}/voice`).set(u.auth)],
      ['GET settings', (u) => api(server).get(`/characters/${charId}/voice/settings`).set(u.auth)],
      ['PUT settings', (u) => api(server).put(`/characters/${charId}/voice/settings`).set(u.auth).send({ stability: 0.1 })],
      ['POST clone', (u) => api(server).post(`/characters/${charId}/voice-clone`).set(u.auth).send({ name: 'X', sample_urls: ['https://example.com/a.wav'] })],
      ['POST preview', (u) => api(server).post(`/characters/${charId}/voice/preview`).set(u.auth).send({ text: 'Hi' })],
      ['POST generate', (u) => api(server).post(`/characters/${charId}/voice/generate`).set(u.auth).send({ text: 'Hi' })],
      ['GET audio', (u) => api(server).get(`/characters/${charId}/voice/audio/${missingId('aud')}`).set(u.auth)],
      ['GET audio list', (u) => api(server).get(`/characters/${charId}/voice/audio`).set(u.auth)],
    ];
    for (const [name, call] of calls) {
      const res = await call(intruder);
      expect([name, res.status, res.body.code]).toEqual([name, 404, 'not_found']);
    }
    const agency = await registerUser(server);
    await setPlan(server, admin, agency.workspace.id, 'agency');
    const key = await api(server).post('/api-keys').set(agency.auth).send({ name: 'k', scopes: ['characters:read'] });
    const res = await api(server).get('/voices').set({ Authorization: `Bearer ${key.body.key}` });
    expect([res.status, res.body.code]).toEqual([401, 'session_required']);
    expect((await api(server).get(`/influencers/${charId}/voice`).set(owner.auth)).status).toBe(200);
  });
});
