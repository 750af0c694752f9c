import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { finishedJob, mediaBytes, probeStreams, toneWav } from '../helpers/media.js';
import { api, grantCredits, loginAdmin, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';
import { startFakeDid, type FakeDid } from '../fakes/did-server.js';
import { fakeSpeech, startFakeElevenLabs, type FakeElevenLabs } from '../fakes/elevenlabs-server.js';

type Body = Record<string, any>;

/** The fake's stock library (test/fakes/elevenlabs-server.ts). */
const PREMADE = ['JBFqnCBsd6RMkjVDRZzb', '21m00Tcm4TlvDq8ikWAM', 'EXAVITQu4vr4xnSDxMaL'];
const RACHEL = '21m00Tcm4TlvDq8ikWAM';

function remoteEnv(el: FakeElevenLabs, did: FakeDid): Record<string, string> {
  return {
    RUN_JOBS_IN_API: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50', OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    VOICE_PROVIDER: 'elevenlabs', ELEVENLABS_API_URL: el.url, ELEVENLABS_API_KEY: el.apiKey,
    TALKING_HEAD_PROVIDER: 'd-id', DID_API_URL: did.url, DID_API_KEY: did.apiKey,
  };
}

/** How long the fake speaks `text` (15 characters a second, at least 0.3 s). */
const fakeSeconds = (text: string) => Math.max(0.3, Array.from(text).length / 15);
/** The fake's pitch for a voice, so its PCM can be made again here. */
const fakePitch = (voiceId: string) => 110 + (createHash('sha256').update(voiceId).digest()[0] % 120);

/** Voices and talking heads through HTTP on the ElevenLabs and D-ID adapters, against their fakes (contract §11-§12). */
describe('voice and talking heads (ElevenLabs and D-ID fakes)', () => {
  let backing: Backing;
  let server: TestServer;
  let el: FakeElevenLabs;
  let did: FakeDid;
  let admin: { Authorization: string };
  let owner: TestUser;
  let intruder: TestUser;
  let charId: string;

  const createCharacter = async (user: TestUser, name: string, extra: Body = {}) => {
    const res = await api(server).post('/characters').set(user.auth).send({ name, niche: 'travel', ...extra });
    expect(res.status).toBe(201);
    return res.body.character.id as string;
  };
  const balance = async (user: TestUser) => (await api(server).get('/billing/credits').set(user.auth)).body.balance as number;
  const ledger = async (user: TestUser) => (await api(server).get('/billing/ledger?page_size=100').set(user.auth)).body.entries as Body[];
  const fetchMedia = (url: string) => mediaBytes(server, url);
  const job = (user: TestUser, id: string) => finishedJob(server, user, id);
  const cloneUpload = (user: TestUser, id: string, files: Buffer[], name: string) => {
    const req = api(server).post(`/characters/${id}/voice-clone`).set(user.auth).field('name', name);
    files.forEach((f, i) => void req.attach('samples', f, { filename: `s${i}.wav`, contentType: 'audio/wav' }));
    return req;
  };
  const voiceOf = async (user: TestUser, id: string) => (await api(server).get(`/characters/${id}/voice`).set(user.auth)).body.voice as Body;
  /** The fake's text-to-speech requests after the first `from`. */
  const ttsSince = (from: number) => el.requests.slice(from).filter((r) => r.method === 'POST' && r.path.startsWith('/v1/text-to-speech/'));

  beforeAll(async () => {
    [el, did] = await Promise.all([startFakeElevenLabs(), startFakeDid()]);
    backing = await createBacking();
    server = await startServer(backing, remoteEnv(el, did));
    admin = await loginAdmin(server);
    [owner, intruder] = await Promise.all([registerUser(server), registerUser(server)]);
    await grantCredits(server, admin, owner.workspace.id, 1000);
    // More characters than the Starter plan holds: clones are replaced and deleted on some of them.
    await setPlan(server, admin, owner.workspace.id, 'agency');
    charId = await createCharacter(owner, 'Vera');
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
    await el?.close();
    await did?.close();
  });

  it('clones through POST /v1/voices/add: ready with the fake’s voice_id; GET /voices shows the fake’s premade voices and this workspace’s clone only', async () => {
    const samples = [toneWav(140, 1.5), toneWav(190, 1)];
    const res = await cloneUpload(owner, charId, samples, 'Vera warm');
    expect(res.status).toBe(202);
    expect(res.body.job).toMatchObject({ job_type: 'clone_voice' });
    expect(await job(owner, res.body.job.id)).toMatchObject({ status: 'completed', error: null });

    const adds = el.requestsTo('/v1/voices/add', 'POST');
    expect(adds).toHaveLength(1);
    expect(adds[0]).toMatchObject({ apiKey: el.apiKey, status: 200, fields: { name: 'Vera warm' } });
    expect(adds[0].files!.map((f, i) => f.bytes.equals(samples[i]))).toEqual([true, true]);
    const cloned = [...el.voices.values()].filter((v) => v.category === 'cloned');
    expect(cloned).toHaveLength(1);

    const voice = await voiceOf(owner, charId);
    expect(voice).toMatchObject({ voice_id: cloned[0].voice_id, status: 'ready', category: 'cloned', name: 'Vera warm', sample_count: 2, error: null });
    expect(voice.settings.voice_id).toBe(cloned[0].voice_id);

    const mine = (await api(server).get('/voices').set(owner.auth)).body.voices as Body[];
    expect(mine.filter((v) => v.category === 'premade').map((v) => v.voice_id).sort()).toEqual([...PREMADE].sort());
    expect(mine.filter((v) => v.category === 'cloned')).toEqual([expect.objectContaining({ voice_id: cloned[0].voice_id, character_id: charId })]);
    // The provider account lists the clone too; another workspace must not see it.
    const theirs = (await api(server).get('/voices').set(intruder.auth)).body.voices as Body[];
    expect(theirs.map((v) => v.voice_id).sort()).toEqual([...PREMADE].sort());
  });

  it('speaks with the stored settings: the fake’s text-to-speech saw exactly them, for the chosen voice; preview and generate return its audio', async () => {
    const settings = { voice_id: RACHEL, stability: 0.31, similarity_boost: 0.62, style: 0.17, use_speaker_boost: false, model_id: 'eleven_turbo_v2_5' };
    const put = await api(server).put(`/characters/${charId}/voice/settings`).set(owner.auth).send(settings);
    expect(put.status).toBe(200);
    expect(put.body.settings).toEqual(settings);
    const expectedBody = (text: string) => ({ text, model_id: settings.model_id, voice_settings: { stability: 0.31, similarity_boost: 0.62, style: 0.17, use_speaker_boost: false } });

    let mark = el.requests.length;
    const text = 'Good morning, this is a preview in the chosen voice.';
    const preview = await api(server).post(`/characters/${charId}/voice/preview`).set(owner.auth).send({ text });
    expect(preview.status).toBe(201);
    const sent = ttsSince(mark);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ path: `/v1/text-to-speech/${RACHEL}/with-timestamps`, query: { output_format: 'mp3_44100_128' }, apiKey: el.apiKey, status: 200 });
    expect(sent[0].body).toEqual(expectedBody(text));
    const mp3 = await fetchMedia(preview.body.audio.url as string);
    const streams = probeStreams(mp3);
    expect(streams).toEqual([expect.objectContaining({ codec_type: 'audio', codec_name: 'mp3' })]);
    expect(Math.abs(Number(streams[0].duration) - fakeSeconds(text))).toBeLessThan(0.15);
    expect(Math.abs(preview.body.audio.duration_seconds - fakeSeconds(text))).toBeLessThan(0.15);
    // The same text and voice again at the fake answer the same bytes: the stored preview is the fake's audio, unchanged.
    const again = await fetch(`${el.url}/v1/text-to-speech/${RACHEL}/with-timestamps?output_format=mp3_44100_128`, {
      method: 'POST', headers: { 'xi-api-key': el.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(expectedBody(text)),
    });
    expect(mp3.equals(Buffer.from(((await again.json()) as Body).audio_base64 as string, 'base64'))).toBe(true);

    mark = el.requests.length;
    const long = 'A longer script, spoken by the fake in the stored voice. '.repeat(3).trim();
    const gen = await api(server).post(`/characters/${charId}/voice/generate`).set(owner.auth).send({ text: long, format: 'wav' });
    expect(gen.status).toBe(202);
    expect((await job(owner, gen.body.job.id)).status).toBe('completed');
    const spoken = ttsSince(mark);
    expect(spoken).toHaveLength(1);
    expect(spoken[0]).toMatchObject({ path: `/v1/text-to-speech/${RACHEL}/with-timestamps`, query: { output_format: 'pcm_22050' } });
    expect(spoken[0].body).toEqual(expectedBody(long));
    const clip = (await api(server).get(`/characters/${charId}/voice/audio/${gen.body.audio.id}`).set(owner.auth)).body.audio as Body;
    const wav = await fetchMedia(clip.url as string);
    const pcm = fakeSpeech(long, 22050, fakePitch(RACHEL)).pcm;
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(wav.subarray(wav.length - pcm.length).equals(pcm)).toBe(true);
    expect(Math.abs(clip.duration_seconds - fakeSeconds(long))).toBeLessThan(0.05);
  });

  it('answers 400 for a voice_id the fake does not know (404 or 400 from it), leaving the settings as they were', async () => {
    const before = (await api(server).get(`/characters/${charId}/voice/settings`).set(owner.auth)).body.settings as Body;
    for (const status of [404, 400] as const) {
      el.options.voiceNotFoundStatus = status;
      const mark = el.requests.length;
      const res = await api(server).put(`/characters/${charId}/voice/settings`).set(owner.auth).send({ voice_id: 'NoSuchVoice0000000001', stability: 0.9 });
      expect([status, res.status, res.body.code]).toEqual([status, 400, 'validation_failed']);
      expect(el.requests.slice(mark).filter((r) => r.path === '/v1/voices/NoSuchVoice0000000001')).toEqual([expect.objectContaining({ method: 'GET', status })]);
    }
    el.options.voiceNotFoundStatus = 404;
    expect((await api(server).get(`/characters/${charId}/voice/settings`).set(owner.auth)).body.settings).toEqual(before);
  });

  it('a clone the fake refuses (quota_exceeded) fails the voice and the job and refunds the 50 credits exactly once', async () => {
    const id = await createCharacter(owner, 'Quota');
    const before = await balance(owner);
    el.fail('quota_exceeded', { path: '/v1/voices/add' });
    const res = await cloneUpload(owner, id, [toneWav(160, 1)], 'Quota voice');
    expect(res.status).toBe(202);
    // The job can fail and refund before any read: the charge is checked in the ledger, not the balance.
    const charged = (await ledger(owner)).filter((e) => e.reason === 'voice_clone' && e.ref_id === res.body.job.id);
    expect(charged).toEqual([expect.objectContaining({ amount: -50 })]);
    const done = await job(owner, res.body.job.id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'upstream_failed' } });
    expect(el.requestsTo('/v1/voices/add', 'POST').at(-1)).toMatchObject({ status: 401 });
    expect(await voiceOf(owner, id)).toMatchObject({ status: 'failed', category: 'premade', error: expect.objectContaining({ code: 'upstream_failed' }) });
    const refunds = (await ledger(owner)).filter((e) => e.reason === 'voice_clone_refund');
    expect(refunds).toEqual([expect.objectContaining({ amount: 50, ref_id: res.body.job.id })]);
    expect(await balance(owner)).toBe(before);
  });

  it('a generate_speech the fake refuses refunds its credits exactly once', async () => {
    const before = await balance(owner);
    el.fail('quota_exceeded');
    const text = 'Speech the fake will refuse. '.repeat(5).trim();
    const res = await api(server).post(`/characters/${charId}/voice/generate`).set(owner.auth).send({ text });
    expect(res.status).toBe(202);
    expect(res.body.audio.credits_charged).toBe(2);
    const charged = (await ledger(owner)).filter((e) => e.reason === 'voice_generation' && e.ref_id === res.body.audio.id);
    expect(charged).toEqual([expect.objectContaining({ amount: -2 })]);
    expect(await job(owner, res.body.job.id)).toMatchObject({ status: 'failed', error: { code: 'upstream_failed' } });
    const clip = (await api(server).get(`/characters/${charId}/voice/audio/${res.body.audio.id}`).set(owner.auth)).body.audio as Body;
    expect(clip).toMatchObject({ status: 'failed', url: null });
    const refunds = (await ledger(owner)).filter((e) => e.reason === 'voice_generation_refund');
    expect(refunds).toEqual([expect.objectContaining({ amount: 2, ref_id: res.body.audio.id })]);
    expect(await balance(owner)).toBe(before);
  });

  it('takes in settings only a premade voice or this workspace’s own clone: another workspace’s clone and an account clone we hold no record of are 400', async () => {
    const [ownClone] = [...el.voices.values()].filter((v) => v.category === 'cloned');
    el.voices.set('oRpHaNaCcOuNtClOnE01', { voice_id: 'oRpHaNaCcOuNtClOnE01', name: 'Made outside', category: 'cloned', labels: {}, description: null, preview_url: null });
    const theirs = await createCharacter(intruder, 'Borrower');
    for (const voiceId of [ownClone.voice_id, 'oRpHaNaCcOuNtClOnE01']) {
      const res = await api(server).put(`/characters/${theirs}/voice/settings`).set(intruder.auth).send({ voice_id: voiceId });
      expect([voiceId, res.status, res.body.code]).toEqual([voiceId, 400, 'validation_failed']);
    }
    const orphan = await api(server).put(`/characters/${charId}/voice/settings`).set(owner.auth).send({ voice_id: 'oRpHaNaCcOuNtClOnE01' });
    expect([orphan.status, orphan.body.code]).toEqual([400, 'validation_failed']);
    const premade = await api(server).put(`/characters/${theirs}/voice/settings`).set(intruder.auth).send({ voice_id: RACHEL });
    expect(premade.status).toBe(200);
    el.voices.delete('oRpHaNaCcOuNtClOnE01');
  });

  it('replacing a clone deletes the old one at ElevenLabs; characters that had chosen it go back to the default voice', async () => {
    const [old] = [...el.voices.values()].filter((v) => v.category === 'cloned');
    const borrower = await createCharacter(owner, 'Echo');
    const chosen = await api(server).put(`/characters/${borrower}/voice/settings`).set(owner.auth).send({ voice_id: old.voice_id });
    expect([chosen.status, chosen.body.settings.voice_id]).toEqual([200, old.voice_id]);
    const res = await cloneUpload(owner, charId, [toneWav(170, 1.5)], 'Vera brighter');
    expect(res.status).toBe(202);
    expect(await job(owner, res.body.job.id)).toMatchObject({ status: 'completed' });
    const voice = await voiceOf(owner, charId);
    expect(voice).toMatchObject({ status: 'ready', category: 'cloned', name: 'Vera brighter' });
    expect(voice.voice_id).not.toBe(old.voice_id);
    expect(el.requestsTo(`/v1/voices/${old.voice_id}`, 'DELETE')).toEqual([expect.objectContaining({ status: 200, apiKey: el.apiKey })]);
    expect(el.voices.has(old.voice_id)).toBe(false);
    expect(el.voices.has(voice.voice_id as string)).toBe(true);
    expect((await voiceOf(owner, borrower)).settings.voice_id).toBe(PREMADE[0]);
    const listed = ((await api(server).get('/voices').set(owner.auth)).body.voices as Body[]).filter((v) => v.category === 'cloned').map((v) => v.voice_id);
    expect(listed).toEqual([voice.voice_id]);
    const stale = await api(server).put(`/characters/${borrower}/voice/settings`).set(owner.auth).send({ voice_id: old.voice_id });
    expect([stale.status, stale.body.code]).toEqual([400, 'validation_failed']);
  });

  it('deleting a character deletes its clone at ElevenLabs', async () => {
    const id = await createCharacter(owner, 'Doomed');
    const res = await cloneUpload(owner, id, [toneWav(120, 1.5)], 'Doomed voice');
    expect(await job(owner, res.body.job.id)).toMatchObject({ status: 'completed' });
    const cloneId = (await voiceOf(owner, id)).voice_id as string;
    expect(el.voices.get(cloneId)).toMatchObject({ category: 'cloned' });
    expect((await api(server).delete(`/characters/${id}`).set(owner.auth)).status).toBe(204);
    expect(el.requestsTo(`/v1/voices/${cloneId}`, 'DELETE')).toEqual([expect.objectContaining({ status: 200 })]);
    expect(el.voices.has(cloneId)).toBe(false);
  });

  describe('talking heads on D-ID', () => {
    let headId: string;
    const face = () => sharp({ create: { width: 96, height: 120, channels: 3, background: { r: 200, g: 160, b: 140 } } }).png().toBuffer();
    const generate = (script: string) => api(server).post(`/characters/${headId}/talking-head/generate`).set(owner.auth).send({ script, aspect_ratio: '9:16' });
    const generation = async (id: string) => (await api(server).get(`/talking-head/${id}`).set(owner.auth)).body.generation as Body;

    beforeAll(async () => {
      headId = await createCharacter(owner, 'Talker', { talking_head_enabled: true });
      const up = await api(server).post(`/characters/${headId}/reference-images`).set(owner.auth).attach('file', await face(), { filename: 'face.png', contentType: 'image/png' });
      expect(up.status).toBe(201);
      expect(up.body.reference_image.type).toBe('primary');
    });

    it('uploads the image and the speech, makes a talk of them and follows it to done: a downloadable MP4 and a video content item', async () => {
      const [images, audios, talks] = [did.images.length, did.audios.length, did.talks.size];
      const mark = el.requests.length;
      const script = 'Hello from the fake studio, with lips that move.';
      const res = await generate(script);
      expect(res.status).toBe(202);
      expect(res.body.pricing).toEqual({ estimated_seconds: Math.ceil(script.length / 15), credits: 5 });
      expect(await job(owner, res.body.job.id)).toMatchObject({ status: 'completed', error: null });

      expect(ttsSince(mark)).toEqual([expect.objectContaining({ query: { output_format: 'pcm_22050' }, body: expect.objectContaining({ text: script }) })]);
      expect(did.images.length - images).toBe(1);
      expect(did.audios.length - audios).toBe(1);
      const [image, audio] = [did.images.at(-1)!, did.audios.at(-1)!];
      expect(await sharp(image.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 720, height: 1280 });
      expect(audio.bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
      const talk = [...did.talks.values()].slice(talks);
      expect(talk).toEqual([expect.objectContaining({ sourceUrl: image.url, audioUrl: audio.url, status: 'done' })]);
      const polls = did.requestsTo(`/talks/${talk[0].id}`, 'GET');
      expect(polls.length).toBeGreaterThanOrEqual(3);
      expect(did.requests.filter((r) => r.path !== `/results/${talk[0].id}/talk.mp4`).every((r) => r.authorization === `Basic ${did.apiKey}`)).toBe(true);
      expect(did.requestsTo(`/results/${talk[0].id}/`)).toEqual([expect.objectContaining({ authorization: undefined })]);

      const g = await generation(res.body.generation.id);
      expect(g).toMatchObject({ status: 'completed', kind: 'full', error: null, content_id: expect.stringMatching(/^cnt_/) });
      expect((await fetchMedia(g.audio_url as string)).equals(audio.bytes)).toBe(true);
      const mp4 = await fetchMedia(g.video_url as string);
      expect(mp4.equals(did.resultVideo)).toBe(true);
      expect(probeStreams(mp4).map((s) => s.codec_name).sort()).toEqual(['aac', 'h264']);
      const item = (await api(server).get(`/content/${g.content_id}`).set(owner.auth)).body.item as Body;
      expect(item).toMatchObject({ content_type: 'video', status: 'ready', media: [expect.objectContaining({ kind: 'video' })] });
      expect((await fetchMedia(item.media[0].url as string)).equals(did.resultVideo)).toBe(true);
    });

    it.each(['error', 'rejected'] as const)('a talk that ends %s fails the generation and refunds it exactly once', async (kind) => {
      did.setMode({ kind });
      try {
        const before = await balance(owner);
        const talks = did.talks.size;
        const res = await generate(`A script the fake will end as ${kind}.`);
        expect(res.status).toBe(202);
        const credits = res.body.pricing.credits as number;
        const charged = (await ledger(owner)).filter((e) => e.reason === 'talking_head_full' && e.ref_id === res.body.generation.id);
        expect(charged).toEqual([expect.objectContaining({ amount: -credits })]);
        expect(await job(owner, res.body.job.id)).toMatchObject({ status: 'failed', error: { code: 'upstream_failed' } });
        expect([...did.talks.values()].slice(talks)).toEqual([expect.objectContaining({ status: kind })]);
        const g = await generation(res.body.generation.id);
        expect(g).toMatchObject({ status: 'failed', video_url: null, content_id: null, error: expect.objectContaining({ code: 'upstream_failed' }) });
        const refunds = (await ledger(owner)).filter((e) => e.reason === 'talking_head_refund' && e.ref_id === g.id);
        expect(refunds).toEqual([expect.objectContaining({ amount: credits })]);
        expect(await balance(owner)).toBe(before);
      } finally {
        did.setMode({ kind: 'ok' });
      }
    });
  });
});
