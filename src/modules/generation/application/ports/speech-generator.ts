/** How a voice speaks (ElevenLabs' voice settings; the local synthesiser reads what it can of them). */
export interface VoiceSettings {
  /** 0-1: higher is steadier, lower more expressive. */
  stability: number;
  /** 0-1: how closely to keep to the original voice. */
  similarityBoost: number;
  /** 0-1: style exaggeration. */
  style: number;
  useSpeakerBoost: boolean;
  /** The provider's model, e.g. `eleven_multilingual_v2`; the local synthesiser ignores it. */
  modelId: string;
}

export const SPEECH_FORMATS = ['mp3', 'wav'] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

export interface SpeechRequest {
  text: string;
  /** The provider's voice id (a library voice or a clone). */
  voiceId: string;
  settings: VoiceSettings;
  format: SpeechFormat;
}

/** When each character of the text is spoken, where the provider says (lip sync follows it). */
export interface SpeechAlignment {
  characters: string[];
  startSeconds: number[];
  endSeconds: number[];
}

export interface Speech {
  bytes: Buffer;
  contentType: string;
  format: SpeechFormat;
  durationSeconds: number;
  alignment?: SpeechAlignment;
}

export interface LibraryVoice {
  voiceId: string;
  name: string;
  category: 'premade' | 'cloned';
  previewUrl: string | null;
  labels: Record<string, string>;
}

/** A sample of the voice to clone, its type already checked by its bytes. */
export interface VoiceSample {
  bytes: Buffer;
  contentType: string;
  filename: string;
}

export interface CloneRequest {
  name: string;
  description?: string;
  samples: VoiceSample[];
  labels?: Record<string, string>;
}

/**
 * Speaks text and clones voices. Adapters: ElevenLabs' API, and an offline eSpeak NG synthesiser
 * (WebAssembly) whose "clones" are deterministic variations (pitch, rate) derived from the samples.
 * Failures are `upstream_failed` (details `{provider, reason}`), an unknown voice `validation_failed`.
 */
export abstract class SpeechGenerator {
  abstract readonly provider: 'elevenlabs' | 'local';
  /** The provider's library of ready voices (premade and the account's clones). */
  abstract voices(signal?: AbortSignal): Promise<LibraryVoice[]>;
  /**
   * Whether the voice id is one of the provider's own stock voices, which every workspace may use.
   * Clones are never premade: whose clone an id is, only the voice context's records say.
   */
  abstract isPremade(voiceId: string, signal?: AbortSignal): Promise<boolean>;
  /** The voice new characters speak with until they have their own. */
  abstract defaultVoiceId(): string;
  abstract cloneVoice(req: CloneRequest, signal?: AbortSignal): Promise<{ voiceId: string }>;
  /** Removes a clone from the provider's account; a voice already gone counts as removed. */
  abstract deleteVoice(voiceId: string, signal?: AbortSignal): Promise<void>;
  abstract speak(req: SpeechRequest, signal?: AbortSignal): Promise<Speech>;
}
