import { createHash } from 'node:crypto';
import { AppError } from '../../../../../core/index.js';
import { wavDurationSeconds } from '../../../../../platform/media/index.js';
import { SpeechGenerator, type CloneRequest, type LibraryVoice, type Speech, type SpeechRequest, type VoiceSample, type VoiceSettings } from '../../../application/ports/index.js';
import { upstreamFailed } from '../shared/provider-failure.js';
import { EspeakEngine, type EspeakVoice } from './espeak-engine.js';
import { decodeAudio, wavToMp3 } from './ffmpeg-audio.js';
import { median, pitchFrames, syllableCount } from './voice-analysis.js';

/** A voice of the offline library: an eSpeak NG voice (and variant) at its own pitch and pace. */
interface LocalVoice {
  voiceId: string;
  name: string;
  espeak: string;
  pitch: number;
  speed: number;
  labels: { accent: string; gender: 'male' | 'female' };
}

/** ~160 words a minute is ~15 characters a second of English, the pace speech is expected at. */
const DEFAULT_SPEED = 160;

const LIBRARY: readonly LocalVoice[] = [
  { voiceId: 'local-en-us-1', name: 'Avery', espeak: 'en-us', pitch: 50, speed: DEFAULT_SPEED, labels: { accent: 'american', gender: 'male' } },
  { voiceId: 'local-en-us-2', name: 'Harper', espeak: 'en-us+f3', pitch: 50, speed: DEFAULT_SPEED, labels: { accent: 'american', gender: 'female' } },
  { voiceId: 'local-en-us-3', name: 'Jordan', espeak: 'en-us+f4', pitch: 55, speed: 170, labels: { accent: 'american', gender: 'female' } },
  { voiceId: 'local-en-gb-1', name: 'Oliver', espeak: 'en-gb-x-rp', pitch: 45, speed: 155, labels: { accent: 'british', gender: 'male' } },
  { voiceId: 'local-en-gb-2', name: 'Amelia', espeak: 'en+f2', pitch: 52, speed: DEFAULT_SPEED, labels: { accent: 'british', gender: 'female' } },
  { voiceId: 'local-en-sc-1', name: 'Callum', espeak: 'en-gb-scotland', pitch: 48, speed: 165, labels: { accent: 'scottish', gender: 'male' } },
];

/**
 * The base a clone starts from, and the median pitch (Hz) this eSpeak build speaks it at for
 * pitch settings 0, 25, 50, 75 and 99, measured with `pitchFrames` on its own output: the
 * inverse of this table turns a sample's pitch into the setting that reproduces it.
 */
const CLONE_BASES = {
  m: { espeak: 'en-us', hzAt: [70, 83, 103, 131, 170] },
  f: { espeak: 'en-us+f3', hzAt: [150, 177, 212, 265, 336] },
} as const;
const PITCH_STEPS = [0, 25, 50, 75, 99];
/** Above this a voice is cloned from the higher (female) base, whose range starts near it. */
const HIGH_VOICE_HZ = 165;
/** Words a minute per syllable a second, measured on eSpeak's own speech (its envelope peaks). */
const WPM_PER_SYLLABLE_RATE = 28;
const CLONE_SPEED = { min: 110, max: 220 };
const ANALYSIS_RATE = 8000;
/**
 * The analysis runs on the calling thread (~8 ms a second of audio), so it reads at most this
 * much of each sample and of all of them: a minute and a half is plenty for a pitch and a pace.
 */
const ANALYSIS_SECONDS = { perSample: 30, total: 90 };

/** `local-clone-<base>-p<pitch>-s<speed>-<hash>`: the clone's whole definition is in its id. */
const CLONE_ID = /^local-clone-([mf])-p(\d|[1-9]\d)-s(\d{3})-([0-9a-f]{8})$/;

/**
 * Offline speech with eSpeak NG (WebAssembly, in a worker thread): intelligible, robotic, free.
 * A "clone" is the base voice nearest the samples' pitch, set to their pitch and pace; its id
 * encodes those settings, so cloning keeps no state and the same samples give the same voice.
 * Clones are not listed by `voices()` nor premade (the voice context keeps them), yet any
 * well-formed clone id can be spoken; there is nothing to delete when one is dropped.
 */
export class LocalSpeechGenerator extends SpeechGenerator {
  readonly provider = 'local' as const;

  constructor(private readonly engine: EspeakEngine = sharedEngine()) {
    super();
  }

  async voices(): Promise<LibraryVoice[]> {
    return LIBRARY.map((v) => ({ voiceId: v.voiceId, name: v.name, category: 'premade', previewUrl: null, labels: { ...v.labels } }));
  }

  async isPremade(voiceId: string): Promise<boolean> {
    return LIBRARY.some((v) => v.voiceId === voiceId);
  }

  defaultVoiceId(): string {
    return LIBRARY[0].voiceId;
  }

  async speak(req: SpeechRequest, signal?: AbortSignal): Promise<Speech> {
    const base = baseVoice(req.voiceId);
    if (!base) throw unknownVoice(req.voiceId);
    if (req.text.trim() === '') throw new AppError('validation_failed', 'There is no text to speak.', [{ field: 'text', message: 'must not be empty' }]);
    const wav = await this.engine.synthesize(req.text, withSettings(base, req.settings), signal);
    const durationSeconds = wavDurationSeconds(wav);
    if (durationSeconds === null) throw upstreamFailed('local', 'bad_response', 'The offline speech synthesiser wrote an unreadable WAV.');
    if (req.format === 'wav') return { bytes: wav, contentType: 'audio/wav', format: 'wav', durationSeconds };
    return { bytes: await wavToMp3(wav, signal), contentType: 'audio/mpeg', format: 'mp3', durationSeconds };
  }

  /** A local clone is its id: no state anywhere to remove. */
  async deleteVoice(): Promise<void> {}

  async cloneVoice(req: CloneRequest, signal?: AbortSignal): Promise<{ voiceId: string }> {
    if (req.samples.length === 0) throw new AppError('validation_failed', 'A voice is cloned from at least one sample.', [{ field: 'samples', message: 'at least one' }]);
    const { pitchHz, syllablesPerSecond } = await analyseSamples(req.samples, signal);
    return { voiceId: cloneId(pitchHz, syllablesPerSecond, req.samples.map((s) => s.bytes)) };
  }
}

/** The samples' median pitch and, when they have syllables to count, their pace. */
async function analyseSamples(samples: VoiceSample[], signal?: AbortSignal): Promise<{ pitchHz: number; syllablesPerSecond: number | null }> {
  const pitches: number[] = [];
  let [syllables, activeSeconds, budget] = [0, 0, ANALYSIS_SECONDS.total];
  for (const sample of samples) {
    if (budget <= 0) break;
    const audio = await decodeAudio(sample.bytes, ANALYSIS_RATE, Math.min(ANALYSIS_SECONDS.perSample, budget), signal);
    budget -= audio.length / ANALYSIS_RATE;
    pitches.push(...pitchFrames(audio, ANALYSIS_RATE));
    const count = syllableCount(audio, ANALYSIS_RATE);
    syllables += count.syllables;
    activeSeconds += count.activeSeconds;
  }
  const pitchHz = median(pitches);
  if (pitchHz === null) throw new AppError('validation_failed', 'The samples hold no voiced sound to clone a voice from.', [{ field: 'samples', message: 'no voiced audio' }]);
  // A steady tone has no syllables: its pace says nothing, so the clone keeps the usual one.
  return { pitchHz, syllablesPerSecond: syllables >= 4 && activeSeconds >= 1 ? syllables / activeSeconds : null };
}

let engine: EspeakEngine | undefined;

/** One synthesiser per process, whoever builds generators: the compiled module is large. */
function sharedEngine(): EspeakEngine {
  engine ??= new EspeakEngine();
  return engine;
}

type BaseVoice = Pick<LocalVoice, 'espeak' | 'pitch' | 'speed'>;

function baseVoice(voiceId: string): BaseVoice | null {
  const library = LIBRARY.find((v) => v.voiceId === voiceId);
  if (library) return library;
  const clone = CLONE_ID.exec(voiceId);
  if (!clone) return null;
  const [pitch, speed] = [Number(clone[2]), Number(clone[3])];
  if (speed < CLONE_SPEED.min || speed > CLONE_SPEED.max) return null;
  return { espeak: CLONE_BASES[clone[1] as 'm' | 'f'].espeak, pitch, speed };
}

/**
 * Settings, modestly: lower stability and more style widen the pitch range (more expressive),
 * style quickens the pace by up to 10 %, speaker boost raises the volume a little. Similarity
 * has no meaning for a synthesiser that copies nothing but pitch and pace.
 */
function withSettings(base: BaseVoice, settings: VoiceSettings): EspeakVoice {
  const unit = (v: number) => Math.min(1, Math.max(0, Number.isFinite(v) ? v : 0.5));
  const [stability, style] = [unit(settings.stability), unit(settings.style)];
  return {
    voice: base.espeak,
    pitch: base.pitch,
    pitchRange: 50 + (0.5 - stability) * 60 + style * 20,
    speed: base.speed * (1 + 0.1 * style),
    amplitude: settings.useSpeakerBoost ? 115 : 100,
  };
}

function cloneId(pitchHz: number, syllablesPerSecond: number | null, samples: Buffer[]): string {
  const base = pitchHz >= HIGH_VOICE_HZ ? 'f' : 'm';
  const pitch = pitchSettingFor(pitchHz, CLONE_BASES[base].hzAt);
  const wpm = syllablesPerSecond === null ? DEFAULT_SPEED : syllablesPerSecond * WPM_PER_SYLLABLE_RATE;
  const speed = Math.round(Math.min(CLONE_SPEED.max, Math.max(CLONE_SPEED.min, wpm)));
  // Each sample hashed alone, then the sorted hashes: the same samples in any order are the same voice.
  const digests = samples.map((bytes) => createHash('sha256').update(bytes).digest('hex')).sort();
  const hash = createHash('sha256').update(digests.join(':')).digest('hex').slice(0, 8);
  return `local-clone-${base}-p${pitch}-s${speed}-${hash}`;
}

/** The pitch setting (0-99) at which the base speaks at `hz`: the calibration read backwards, in octaves. */
function pitchSettingFor(hz: number, hzAt: readonly number[]): number {
  const octaves = hzAt.map((f) => Math.log2(f));
  const target = Math.log2(hz);
  if (target <= octaves[0]) return PITCH_STEPS[0];
  for (let i = 1; i < octaves.length; i++) {
    if (target <= octaves[i]) {
      const t = (target - octaves[i - 1]) / (octaves[i] - octaves[i - 1]);
      return Math.round(PITCH_STEPS[i - 1] + t * (PITCH_STEPS[i] - PITCH_STEPS[i - 1]));
    }
  }
  return PITCH_STEPS[PITCH_STEPS.length - 1];
}

function unknownVoice(voiceId: string): AppError {
  return new AppError('validation_failed', `The offline synthesiser has no voice "${voiceId.slice(0, 80)}".`, [{ field: 'voice_id', message: 'unknown voice' }]);
}
