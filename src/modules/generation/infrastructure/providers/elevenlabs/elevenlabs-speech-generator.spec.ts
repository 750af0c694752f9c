import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { startFakeElevenLabs, type FakeElevenLabs } from '../../../../../../test/fakes/elevenlabs-server.js';
import { mp3DurationSeconds, readWav, sniffAudioType } from '../../../../../platform/media/index.js';
import type { SpeechRequest, VoiceSettings } from '../../../application/ports/index.js';
import { recordedSleep, rejection } from '../spec-fixtures.js';
import { ElevenLabsClient, type ElevenLabsOptions } from './elevenlabs-client.js';
import { ELEVENLABS_DEFAULTS, ElevenLabsSpeechGenerator } from './elevenlabs-speech-generator.js';

jest.setTimeout(30_000);

let fake: FakeElevenLabs;
beforeAll(async () => {
  fake = await startFakeElevenLabs();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

function generator(overrides: Partial<ElevenLabsOptions> = {}): ElevenLabsSpeechGenerator {
  const client = new ElevenLabsClient({ baseUrl: fake.url, apiKey: fake.apiKey, concurrency: 2, timeoutMs: 10_000, retry: { sleep: recordedSleep().sleep }, ...overrides });
  return new ElevenLabsSpeechGenerator(client, { defaultModelId: 'eleven_turbo_v2_5' });
}

const SETTINGS: VoiceSettings = { stability: 0.3, similarityBoost: 0.9, style: 0.2, useSpeakerBoost: false, modelId: 'eleven_multilingual_v2' };
const TEXT = 'Good morning, everyone! Today we bake bread together.';

function request(overrides: Partial<SpeechRequest> = {}): SpeechRequest {
  return { text: TEXT, voiceId: ELEVENLABS_DEFAULTS.voiceId, settings: SETTINGS, format: 'mp3', ...overrides };
}

describe('ElevenLabsSpeechGenerator: voices', () => {
  it('lists the library, stock voices as premade and the account’s own as cloned, with string labels only', async () => {
    fake.voices.set('gEnErAtEd1', { voice_id: 'gEnErAtEd1', name: 'Designed', category: 'generated', labels: { accent: 'irish', weird: 3 as any }, description: null, preview_url: 'https://cdn.example/preview.mp3' });
    fake.voices.set('pRoFeSsIoNaL1', { voice_id: 'pRoFeSsIoNaL1', name: 'Pro', category: 'professional', labels: {}, description: null, preview_url: null });
    const voices = await generator().voices();
    expect(voices).toContainEqual({ voiceId: 'JBFqnCBsd6RMkjVDRZzb', name: 'George', category: 'premade', previewUrl: null, labels: { accent: 'british', gender: 'male', age: 'middle_aged' } });
    expect(voices).toContainEqual({ voiceId: 'gEnErAtEd1', name: 'Designed', category: 'cloned', previewUrl: 'https://cdn.example/preview.mp3', labels: { accent: 'irish' } });
    expect(voices.find((v) => v.voiceId === 'pRoFeSsIoNaL1')?.category).toBe('cloned');
    expect(fake.requestsTo('/v1/voices', 'GET')[0].apiKey).toBe(fake.apiKey);
  });

  it('knows a premade voice by asking for it; the account’s own voices are not premade; a 404 or a 400 voice_not_found is no voice; a malformed id is not asked about', async () => {
    const g = generator();
    fake.voices.set('oRpHaNcLoNe1', { voice_id: 'oRpHaNcLoNe1', name: 'Orphan', category: 'cloned', labels: {}, description: null, preview_url: null });
    await expect(g.isPremade('21m00Tcm4TlvDq8ikWAM')).resolves.toBe(true);
    await expect(g.isPremade('oRpHaNcLoNe1')).resolves.toBe(false);
    await expect(g.isPremade('NoSuchVoice000000000')).resolves.toBe(false);
    fake.options.voiceNotFoundStatus = 400;
    await expect(g.isPremade('NoSuchVoice000000000')).resolves.toBe(false);
    await expect(g.isPremade('../v1/user')).resolves.toBe(false);
    await expect(g.isPremade('')).resolves.toBe(false);
    expect(fake.requestsTo('/v1/voices/').map((r) => r.path)).toEqual([
      '/v1/voices/21m00Tcm4TlvDq8ikWAM', '/v1/voices/oRpHaNcLoNe1', '/v1/voices/NoSuchVoice000000000', '/v1/voices/NoSuchVoice000000000',
    ]);
    expect(g.defaultVoiceId()).toBe('JBFqnCBsd6RMkjVDRZzb');
  });

  it('fails a voice lookup it cannot answer rather than calling the voice unknown', async () => {
    fake.fail('quota_exceeded', { path: '/v1/voices/' });
    const err = await rejection(generator().isPremade('21m00Tcm4TlvDq8ikWAM'));
    expect(err).toMatchObject({ code: 'upstream_failed', details: { provider: 'elevenlabs', reason: 'quota_exceeded' } });
  });
});

describe('ElevenLabsSpeechGenerator: cloning', () => {
  it('adds the voice with its name, description, labels and every sample as a files part', async () => {
    const wav = Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt '), Buffer.alloc(40, 1)]);
    const mp3 = Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00'), Buffer.alloc(30, 2)]);
    const g = generator();
    const { voiceId } = await g.cloneVoice({
      name: 'Luna "the baker"',
      description: 'Warm, a little husky',
      labels: { accent: 'british', gender: 'female' },
      samples: [
        { bytes: wav, contentType: 'audio/wav', filename: 'kitchen take 1.wav' },
        { bytes: mp3, contentType: 'audio/mpeg', filename: '"evil"\r\nname.mp3' },
      ],
    });
    const [add] = fake.requestsTo('/v1/voices/add', 'POST');
    expect(add.fields).toEqual({ name: 'Luna "the baker"', description: 'Warm, a little husky', labels: JSON.stringify({ accent: 'british', gender: 'female' }) });
    expect(add.files?.map((f) => [f.filename, f.contentType])).toEqual([
      ['kitchen_take_1.wav', 'audio/wav'],
      ['evil_name.mp3', 'audio/mpeg'],
    ]);
    expect(add.files?.[0].bytes.equals(wav)).toBe(true);
    expect(add.files?.[1].bytes.equals(mp3)).toBe(true);
    expect(fake.voices.get(voiceId)).toMatchObject({ name: 'Luna "the baker"', category: 'cloned' });
    expect((await g.voices()).find((v) => v.voiceId === voiceId)?.category).toBe('cloned');
    await expect(g.isPremade(voiceId)).resolves.toBe(false);
    expect((await g.speak(request({ voiceId }))).bytes.length).toBeGreaterThan(0);
  });

  it('deletes a clone with DELETE /v1/voices/{id}; one already gone counts as deleted; a malformed id is not sent', async () => {
    const wav = Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt '), Buffer.alloc(40, 1)]);
    const g = generator();
    const { voiceId } = await g.cloneVoice({ name: 'Gone soon', samples: [{ bytes: wav, contentType: 'audio/wav', filename: 'a.wav' }] });
    await g.deleteVoice(voiceId);
    expect(fake.voices.has(voiceId)).toBe(false);
    await g.deleteVoice(voiceId);
    fake.options.voiceNotFoundStatus = 400;
    await g.deleteVoice(voiceId);
    await g.deleteVoice('../v1/user');
    expect(fake.requestsTo('/v1/voices/', 'DELETE').map((r) => [r.path, r.status, r.apiKey])).toEqual([
      [`/v1/voices/${voiceId}`, 200, fake.apiKey], [`/v1/voices/${voiceId}`, 404, fake.apiKey], [`/v1/voices/${voiceId}`, 400, fake.apiKey],
    ]);
  });

  it('fails a deletion ElevenLabs refuses for another reason rather than calling it done', async () => {
    fake.fail('invalid_api_key', { path: '/v1/voices/' });
    const err = await rejection(generator().deleteVoice('sOmEcLoNe1'));
    expect(err).toMatchObject({ code: 'upstream_failed', details: { provider: 'elevenlabs', reason: 'unauthorized' } });
  });

  it('sends neither description nor labels when there are none', async () => {
    const wav = Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt '), Buffer.alloc(40, 1)]);
    await generator().cloneVoice({ name: 'Plain', samples: [{ bytes: wav, contentType: 'audio/wav', filename: '' }] });
    const [add] = fake.requestsTo('/v1/voices/add', 'POST');
    expect(add.fields).toEqual({ name: 'Plain' });
    expect(add.files?.[0].filename).toBe('sample-1');
  });
});

describe('ElevenLabsSpeechGenerator: speaking', () => {
  it('asks for MP3 with timestamps, sending the text, the model and the voice settings', async () => {
    const speech = await generator().speak(request());
    const [tts] = fake.requestsTo('/v1/text-to-speech/', 'POST');
    expect(tts.path).toBe(`/v1/text-to-speech/${ELEVENLABS_DEFAULTS.voiceId}/with-timestamps`);
    expect(tts.query).toEqual({ output_format: 'mp3_44100_128' });
    expect(tts.apiKey).toBe(fake.apiKey);
    expect(tts.body).toEqual({ text: TEXT, model_id: 'eleven_multilingual_v2', voice_settings: { stability: 0.3, similarity_boost: 0.9, style: 0.2, use_speaker_boost: false } });
    expect(speech).toMatchObject({ format: 'mp3', contentType: 'audio/mpeg' });
    expect(sniffAudioType(speech.bytes)?.ext).toBe('mp3');
    expect(speech.durationSeconds).toBeCloseTo(mp3DurationSeconds(speech.bytes)!, 6);
    // The fake speaks 15 characters a second; MP3 rounds up to whole frames.
    expect(speech.durationSeconds).toBeGreaterThanOrEqual(TEXT.length / 15);
    expect(speech.durationSeconds).toBeLessThan(TEXT.length / 15 + 0.1);
  });

  it('fills the alignment: one entry per character, in order, ending where the speech ends', async () => {
    const { alignment, durationSeconds } = await generator().speak(request());
    expect(alignment?.characters.join('')).toBe(TEXT);
    expect(alignment?.startSeconds).toHaveLength(TEXT.length);
    expect(alignment?.endSeconds).toHaveLength(TEXT.length);
    for (let i = 1; i < TEXT.length; i++) expect(alignment!.startSeconds[i]).toBeGreaterThanOrEqual(alignment!.startSeconds[i - 1]);
    expect(Math.abs(alignment!.endSeconds[TEXT.length - 1] - durationSeconds)).toBeLessThan(0.1);
  });

  it('answers WAV from 22.05 kHz PCM, its length from the samples', async () => {
    const speech = await generator().speak(request({ format: 'wav' }));
    expect(fake.requestsTo('/v1/text-to-speech/')[0].query.output_format).toBe('pcm_22050');
    expect(speech).toMatchObject({ format: 'wav', contentType: 'audio/wav' });
    expect(readWav(speech.bytes)).toMatchObject({ format: 1, channels: 1, sampleRate: 22050, bitsPerSample: 16 });
    expect(speech.durationSeconds).toBeCloseTo(TEXT.length / 15, 2);
  });

  it('uses the default model when the settings name none', async () => {
    await generator().speak(request({ settings: { ...SETTINGS, modelId: '' } }));
    expect(fake.requestsTo('/v1/text-to-speech/')[0].body.model_id).toBe('eleven_turbo_v2_5');
  });

  it('refuses an unknown voice as a validation failure, whichever status says so', async () => {
    for (const status of [404, 400] as const) {
      fake.options.voiceNotFoundStatus = status;
      const err = await rejection(generator().speak(request({ voiceId: 'NoSuchVoice000000000' })));
      expect(err).toMatchObject({ code: 'validation_failed', details: [{ field: 'voice_id', message: 'unknown voice' }] });
    }
  });

  it('refuses audio that is not what it asked for', async () => {
    fake.fail('malformed_audio');
    const err = await rejection(generator().speak(request()));
    expect(err).toMatchObject({ code: 'upstream_failed', details: { provider: 'elevenlabs', reason: 'bad_response' } });
  });
});
