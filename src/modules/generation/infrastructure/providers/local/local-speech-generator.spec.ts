import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { AppError } from '../../../../../core/index.js';
import { mp3DurationSeconds, pcm16Wav, readWav, sniffAudioType, wavDurationSeconds } from '../../../../../platform/media/index.js';
import type { SpeechRequest, VoiceSample, VoiceSettings } from '../../../application/ports/index.js';
import { EspeakEngine } from './espeak-engine.js';
import { runFfmpeg } from '../../../../../platform/media/index.js';
import { LocalSpeechGenerator } from './local-speech-generator.js';
import { median, pitchFrames, syllableCount } from './voice-analysis.js';

jest.setTimeout(60_000);

const engine = new EspeakEngine();
const generator = new LocalSpeechGenerator(engine);
afterAll(() => engine.close());

const SETTINGS: VoiceSettings = { stability: 0.5, similarityBoost: 0.75, style: 0, useSpeakerBoost: true, modelId: 'eleven_multilingual_v2' };
const SHORT = 'Hello, friends!';
const MEDIUM = 'Thanks for watching my channel today, see you all tomorrow.';
const LONG =
  'Today I want to show you three simple ways to make your mornings calmer, brighter and a lot more productive. ' +
  'Grab a coffee, get comfortable, and let us begin together with the very first one.';

function request(text: string, overrides: Partial<SpeechRequest> = {}): SpeechRequest {
  return { text, voiceId: generator.defaultVoiceId(), settings: SETTINGS, format: 'wav', ...overrides };
}

/** The WAV's samples as floats in [-1, 1] (16-bit mono, as eSpeak writes). */
function samplesOf(wav: Buffer): { samples: Float32Array; rate: number } {
  const info = readWav(wav)!;
  const samples = new Float32Array(info.dataLength / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = wav.readInt16LE(info.dataOffset + i * 2) / 32768;
  return { samples, rate: info.sampleRate };
}

function rms(samples: Float32Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

function spokenPitch(wav: Buffer): number {
  const { samples, rate } = samplesOf(wav);
  return median(pitchFrames(samples, rate))!;
}

/**
 * A stand-in voice: a tone with two overtones at `hz`, its loudness pulsing `syllablesPerSecond`
 * times a second the way syllables do (0: a steady tone).
 */
function syntheticVoice(hz: number, syllablesPerSecond: number, seconds = 4, rate = 16000): Buffer {
  const pcm = Buffer.alloc(seconds * rate * 2);
  for (let i = 0; i < seconds * rate; i++) {
    const t = i / rate;
    const tone = Math.sin(2 * Math.PI * hz * t) + 0.5 * Math.sin(4 * Math.PI * hz * t) + 0.25 * Math.sin(6 * Math.PI * hz * t);
    const envelope = syllablesPerSecond === 0 ? 1 : 0.05 + 0.95 * (0.5 - 0.5 * Math.cos(2 * Math.PI * syllablesPerSecond * t));
    pcm.writeInt16LE(Math.round(tone * envelope * 0.4 * 32767), i * 2);
  }
  return pcm16Wav(pcm, rate);
}

function sample(bytes: Buffer, contentType = 'audio/wav'): VoiceSample {
  return { bytes, contentType, filename: 'sample' };
}

describe('LocalSpeechGenerator: the library', () => {
  it('offers a handful of premade voices with accent and gender, the default among them', async () => {
    const voices = await generator.voices();
    expect(voices.length).toBeGreaterThanOrEqual(4);
    expect(new Set(voices.map((v) => v.voiceId)).size).toBe(voices.length);
    for (const v of voices) {
      expect(v).toEqual({ voiceId: expect.stringMatching(/^local-en-[a-z]+-\d$/), name: expect.any(String), category: 'premade', previewUrl: null, labels: { accent: expect.any(String), gender: expect.stringMatching(/^(male|female)$/) } });
      await expect(generator.isPremade(v.voiceId)).resolves.toBe(true);
    }
    expect(voices.map((v) => v.voiceId)).toContain(generator.defaultVoiceId());
    expect(generator.provider).toBe('local');
  });

  it('speaks any well-formed clone id, none of them premade (only the voice context knows whose clone is whose); a malformed one is unknown', async () => {
    for (const id of ['local-clone-m-p62-s170-0123abcd', 'local-clone-f-p0-s110-ffffffff']) {
      await expect(generator.isPremade(id)).resolves.toBe(false);
      expect((await generator.speak(request(SHORT, { voiceId: id }))).durationSeconds).toBeGreaterThan(0.3);
    }
    for (const id of ['local-clone-x-p62-s170-0123abcd', 'local-clone-m-p100-s170-0123abcd', 'local-clone-m-p62-s300-0123abcd', 'local-clone-m-p62-s170-0123ABCD', 'local-clone-m-p62-s170-0123abcd ', 'local-clone-m-p05-s170-0123abcd', 'local-en-us-9', '21m00Tcm4TlvDq8ikWAM', '']) {
      await expect(generator.isPremade(id)).resolves.toBe(false);
      await expect(generator.speak(request(SHORT, { voiceId: id }))).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'voice_id', message: 'unknown voice' }] });
    }
  });
});

describe('LocalSpeechGenerator: speaking', () => {
  it.each([SHORT, MEDIUM, LONG])('speaks %j for about as long as 15 characters a second (±40 %%)', async (text) => {
    const speech = await generator.speak(request(text));
    const expected = text.length / 15;
    expect(speech.durationSeconds).toBeGreaterThan(expected * 0.6);
    expect(speech.durationSeconds).toBeLessThan(expected * 1.4);
    expect(speech).toMatchObject({ format: 'wav', contentType: 'audio/wav' });
    expect(sniffAudioType(speech.bytes)).toEqual({ mime: 'audio/wav', ext: 'wav' });
    expect(wavDurationSeconds(speech.bytes)).toBeCloseTo(speech.durationSeconds, 6);
  });

  it('sounds like speech: loud enough, voiced for much of it, with about a syllable per three characters', async () => {
    const { samples, rate } = samplesOf((await generator.speak(request(LONG))).bytes);
    expect(rms(samples)).toBeGreaterThan(0.02);
    const voicedSeconds = pitchFrames(samples, rate).length * 0.02;
    expect(voicedSeconds / (samples.length / rate)).toBeGreaterThan(0.3);
    const { syllables } = syllableCount(samples, rate);
    expect(syllables).toBeGreaterThan(LONG.length / 8);
    expect(syllables).toBeLessThan(LONG.length / 2);
  });

  it('reads a text that looks like options as text: it is never an argument', async () => {
    const text = '-v xx --help -w /etc/passwd "quoted" $(whoami)';
    const speech = await generator.speak(request(text));
    expect(speech.durationSeconds).toBeGreaterThan(1.5);
    expect(rms(samplesOf(speech.bytes).samples)).toBeGreaterThan(0.02);
  });

  it('says the same text the same way every time, also when asked at once', async () => {
    const [a, b, c] = await Promise.all([generator.speak(request(MEDIUM)), generator.speak(request(MEDIUM)), generator.speak(request(SHORT))]);
    expect(a.bytes.equals(b.bytes)).toBe(true);
    expect((await generator.speak(request(SHORT))).bytes.equals(c.bytes)).toBe(true);
  });

  it('answers an MP3 of the same length when asked for one', async () => {
    const speech = await generator.speak(request(MEDIUM, { format: 'mp3' }));
    expect(speech).toMatchObject({ format: 'mp3', contentType: 'audio/mpeg' });
    expect(sniffAudioType(speech.bytes)?.ext).toBe('mp3');
    // The encoder adds under a frame of padding at each end.
    expect(Math.abs(mp3DurationSeconds(speech.bytes)! - speech.durationSeconds)).toBeLessThan(0.15);
  });

  it('reads the settings: less stability moves the pitch more, style quickens, speaker boost is louder', async () => {
    const spread = (wav: Buffer) => {
      const pitches = pitchFrames(samplesOf(wav).samples, 22050).sort((x, y) => x - y);
      return pitches[Math.floor(pitches.length * 0.9)] / pitches[Math.floor(pitches.length * 0.1)];
    };
    const steady = await generator.speak(request(LONG, { settings: { ...SETTINGS, stability: 1 } }));
    const lively = await generator.speak(request(LONG, { settings: { ...SETTINGS, stability: 0 } }));
    expect(spread(lively.bytes)).toBeGreaterThan(spread(steady.bytes));
    const styled = await generator.speak(request(LONG, { settings: { ...SETTINGS, stability: 1, style: 1 } }));
    expect(styled.durationSeconds).toBeLessThan(steady.durationSeconds * 0.97);
    const quiet = await generator.speak(request(LONG, { settings: { ...SETTINGS, stability: 1, useSpeakerBoost: false } }));
    expect(rms(samplesOf(steady.bytes).samples)).toBeGreaterThan(rms(samplesOf(quiet.bytes).samples) * 1.05);
  });

  it('refuses an unknown voice and an empty text as validation failures', async () => {
    await expect(generator.speak(request(SHORT, { voiceId: 'local-en-us-9' }))).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'voice_id', message: 'unknown voice' }] });
    await expect(generator.speak(request('  \n '))).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('does not start a text whose caller already gave up', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(generator.speak(request(SHORT), controller.signal)).rejects.toMatchObject({ code: 'upstream_failed', details: { provider: 'local', reason: 'aborted' } });
  });
});

describe('LocalSpeechGenerator: cloning', () => {
  const low = syntheticVoice(120, 4);
  const high = syntheticVoice(220, 4);

  it('derives different, repeatable ids from different voices, whatever the samples’ order', async () => {
    const a = await generator.cloneVoice({ name: 'Low', samples: [sample(low)] });
    const b = await generator.cloneVoice({ name: 'High', samples: [sample(high)] });
    expect(a.voiceId).toMatch(/^local-clone-m-p\d+-s\d+-[0-9a-f]{8}$/);
    expect(b.voiceId).toMatch(/^local-clone-f-p\d+-s\d+-[0-9a-f]{8}$/);
    await expect(generator.cloneVoice({ name: 'Again', samples: [sample(low)] })).resolves.toEqual(a);
    const both = await generator.cloneVoice({ name: 'Both', samples: [sample(low), sample(high)] });
    await expect(generator.cloneVoice({ name: 'Both', samples: [sample(high), sample(low)] })).resolves.toEqual(both);
    await expect(generator.isPremade(a.voiceId)).resolves.toBe(false);
    expect((await generator.speak(request(SHORT, { voiceId: a.voiceId }))).durationSeconds).toBeGreaterThan(0.3);
    await expect(generator.deleteVoice()).resolves.toBeUndefined();
  });

  it('speaks a clone at the pitch of its samples (within 15 %), higher samples higher', async () => {
    const lowClone = await generator.cloneVoice({ name: 'Low', samples: [sample(low)] });
    const { stdout: mp3 } = await runFfmpeg(['-f', 'wav', '-i', 'pipe:0', '-codec:a', 'libmp3lame', '-f', 'mp3', 'pipe:1'], { input: high, timeoutMs: 30_000, maxStdoutBytes: high.length });
    const highClone = await generator.cloneVoice({ name: 'High', samples: [sample(mp3, 'audio/mpeg')] });
    const lowPitch = spokenPitch((await generator.speak(request(LONG, { voiceId: lowClone.voiceId }))).bytes);
    const highPitch = spokenPitch((await generator.speak(request(LONG, { voiceId: highClone.voiceId }))).bytes);
    expect(highPitch).toBeGreaterThan(lowPitch * 1.4);
    expect(Math.abs(lowPitch / 120 - 1)).toBeLessThan(0.15);
    expect(Math.abs(highPitch / 220 - 1)).toBeLessThan(0.15);
  });

  it('takes the pace from the syllables: faster samples, a faster clone; a steady tone, the usual pace', async () => {
    const pace = async (bytes: Buffer) => Number(/-s(\d+)-/.exec((await generator.cloneVoice({ name: 'Pace', samples: [sample(bytes)] })).voiceId)![1]);
    const slow = await pace(syntheticVoice(150, 3));
    const fast = await pace(syntheticVoice(150, 6));
    expect(fast).toBeGreaterThan(slow * 1.3);
    expect(await pace(syntheticVoice(150, 0))).toBe(160);
  });

  it('clones its own speech back to about its pitch and pace', async () => {
    const speech = await generator.speak(request(LONG, { voiceId: 'local-en-gb-1' }));
    const { voiceId } = await generator.cloneVoice({ name: 'Echo', samples: [sample(speech.bytes)] });
    const [, base, pitch, speed] = /^local-clone-([mf])-p(\d+)-s(\d+)-/.exec(voiceId)!;
    expect(base).toBe('m');
    expect(Math.abs(Number(pitch) - 45)).toBeLessThanOrEqual(8);
    expect(Math.abs(Number(speed) / 155 - 1)).toBeLessThan(0.15);
  });

  it('refuses samples with nothing voiced, and bytes that are no audio at all', async () => {
    const silence = pcm16Wav(Buffer.alloc(16000 * 2 * 2), 16000);
    await expect(generator.cloneVoice({ name: 'Silence', samples: [sample(silence)] })).rejects.toMatchObject({ code: 'validation_failed' });
    const garbage = Buffer.concat([Buffer.from('RIFF\x10\x00\x00\x00WAVEjunk'), Buffer.alloc(64, 7)]);
    const failure = await generator.cloneVoice({ name: 'Junk', samples: [sample(garbage)] }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'unsupported_media_type' });
    await expect(generator.cloneVoice({ name: 'None', samples: [] })).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
