import { mp3DurationSeconds, pcm16Wav, sniffAudioType, wavDurationSeconds } from '../../../../../platform/media/index.js';
import { SpeechGenerator, type CloneRequest, type LibraryVoice, type Speech, type SpeechAlignment, type SpeechRequest } from '../../../application/ports/index.js';
import { upstreamFailed } from '../shared/provider-failure.js';
import type { ElevenLabsClient, ElevenLabsVoice, TimedSpeech } from './elevenlabs-client.js';

export interface ElevenLabsSpeechOptions {
  /** The library voice characters speak with until they have their own (default: George, a premade voice). */
  defaultVoiceId?: string;
  /** The model when the settings name none. */
  defaultModelId?: string;
}

export const ELEVENLABS_DEFAULTS = { voiceId: 'JBFqnCBsd6RMkjVDRZzb', modelId: 'eleven_multilingual_v2' } as const;

/**
 * MP3 is ElevenLabs' own format on every plan; WAV is asked for as 16-bit PCM at 22.05 kHz
 * (`pcm_22050`, every plan, unlike its `wav_*` formats) and given its header here.
 */
const OUTPUT = { mp3: 'mp3_44100_128', wav: 'pcm_22050' } as const;
const PCM_RATE = 22050;

/** ElevenLabs' own stock voices; every other category (cloned, generated, professional) is the account's own. */
const STOCK_CATEGORIES = new Set(['premade', 'famous', 'high_quality']);

/** Voice ids are short and alphanumeric: anything else is unknown without asking. */
const VOICE_ID = /^[A-Za-z0-9]{1,64}$/;

/**
 * ElevenLabs text-to-speech and instant voice cloning. Speech comes from the `/with-timestamps`
 * form, so it carries when each character is spoken (lip sync follows it).
 */
export class ElevenLabsSpeechGenerator extends SpeechGenerator {
  readonly provider = 'elevenlabs' as const;

  constructor(
    private readonly client: ElevenLabsClient,
    private readonly opts: ElevenLabsSpeechOptions = {},
  ) {
    super();
  }

  async voices(signal?: AbortSignal): Promise<LibraryVoice[]> {
    return (await this.client.listVoices(signal)).map(libraryVoice);
  }

  /** Asked of ElevenLabs each time: its stock library changes, and the account's own voices are not premade. */
  async isPremade(voiceId: string, signal?: AbortSignal): Promise<boolean> {
    if (!VOICE_ID.test(voiceId)) return false;
    const voice = await this.client.getVoice(voiceId, signal);
    return voice !== null && STOCK_CATEGORIES.has(voice.category ?? '');
  }

  defaultVoiceId(): string {
    return this.opts.defaultVoiceId ?? ELEVENLABS_DEFAULTS.voiceId;
  }

  async cloneVoice(req: CloneRequest, signal?: AbortSignal): Promise<{ voiceId: string }> {
    return this.client.addVoice({ name: req.name, description: req.description, labels: req.labels, files: req.samples }, signal);
  }

  async deleteVoice(voiceId: string, signal?: AbortSignal): Promise<void> {
    if (VOICE_ID.test(voiceId)) await this.client.deleteVoice(voiceId, signal);
  }

  async speak(req: SpeechRequest, signal?: AbortSignal): Promise<Speech> {
    const s = req.settings;
    const body = {
      text: req.text,
      model_id: s.modelId || (this.opts.defaultModelId ?? ELEVENLABS_DEFAULTS.modelId),
      voice_settings: { stability: s.stability, similarity_boost: s.similarityBoost, style: s.style, use_speaker_boost: s.useSpeakerBoost },
    };
    const timed = await this.client.textToSpeech(req.voiceId, body, OUTPUT[req.format], signal);
    const alignment = alignmentOf(timed);
    const audio = req.format === 'wav' ? wavOf(timed.audio) : mp3Of(timed.audio);
    const fromAudio = req.format === 'wav' ? wavDurationSeconds(audio) : mp3DurationSeconds(audio);
    // The audio's own length is what plays; the alignment's end (when the last character ends) is the fallback.
    const durationSeconds = fromAudio ?? (alignment ? Math.max(0, ...alignment.endSeconds) : null);
    if (durationSeconds === null) throw upstreamFailed('elevenlabs', 'bad_response', 'ElevenLabs sent audio whose length cannot be read.');
    return { bytes: audio, contentType: req.format === 'wav' ? 'audio/wav' : 'audio/mpeg', format: req.format, durationSeconds, ...(alignment ? { alignment } : {}) };
  }
}

function libraryVoice(v: ElevenLabsVoice): LibraryVoice {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(v.labels ?? {})) if (typeof value === 'string') labels[key] = value;
  return {
    voiceId: v.voice_id,
    name: v.name ?? v.voice_id,
    category: STOCK_CATEGORIES.has(v.category ?? '') ? 'premade' : 'cloned',
    previewUrl: typeof v.preview_url === 'string' && v.preview_url !== '' ? v.preview_url : null,
    labels,
  };
}

function alignmentOf(timed: TimedSpeech): SpeechAlignment | undefined {
  const a = timed.alignment;
  if (!a || a.characters.length === 0) return undefined;
  return { characters: a.characters, startSeconds: a.character_start_times_seconds, endSeconds: a.character_end_times_seconds };
}

function mp3Of(audio: Buffer): Buffer {
  if (sniffAudioType(audio)?.ext !== 'mp3') throw upstreamFailed('elevenlabs', 'bad_response', 'ElevenLabs sent audio that is not MP3.');
  return audio;
}

function wavOf(pcm: Buffer): Buffer {
  if (pcm.length === 0 || pcm.length % 2 !== 0) throw upstreamFailed('elevenlabs', 'bad_response', 'ElevenLabs sent PCM audio of an impossible length.');
  return pcm16Wav(pcm, PCM_RATE);
}
