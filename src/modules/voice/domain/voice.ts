/** A character's voice: which voice speaks for it, how, and its clone (contract §11). Pure rules. */
import { AppError } from '../../../core/index.js';

export const CLONE_VOICE_JOB = 'clone_voice';
export const GENERATE_SPEECH_JOB = 'generate_speech';

export const VOICE_STATUSES = ['none', 'cloning', 'ready', 'failed'] as const;
export type VoiceStatus = (typeof VOICE_STATUSES)[number];

export const MAX_SAMPLES = 25;
export const MAX_SAMPLE_BYTES = 10 * 1024 * 1024;
export const MAX_SAMPLES_BYTES = 50 * 1024 * 1024;
export const MAX_PREVIEW_CHARS = 200;
export const MAX_SPEECH_CHARS = 5000;

/** The settings a character speaks with; `voiceId` null means the workspace default library voice. */
export interface CharacterVoiceSettings {
  voiceId: string | null;
  stability: number;
  similarityBoost: number;
  style: number;
  useSpeakerBoost: boolean;
  modelId: string | null;
}

/** Contract §11's defaults: 0.5, 0.75, 0, true; the model is the configured one. */
export const DEFAULT_SETTINGS: CharacterVoiceSettings = { voiceId: null, stability: 0.5, similarityBoost: 0.75, style: 0, useSpeakerBoost: true, modelId: null };

export interface VoiceFailure {
  code: string;
  message: string;
}

/** The character's voice record; absent until its settings are first set or a clone is asked for. */
export interface CharacterVoice {
  id: string;
  workspaceId: string;
  characterId: string;
  /** The clone's name, when the character has one. */
  name: string | null;
  /** The provider's id of the clone, once ready. */
  cloneVoiceId: string | null;
  status: VoiceStatus;
  settings: CharacterVoiceSettings;
  sampleCount: number;
  error: VoiceFailure | null;
  jobId: string | null;
  creditsCharged: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A clone is under way: a second one waits for it to end. */
export function cloneRefusal(status: VoiceStatus): AppError | null {
  return status === 'cloning' ? new AppError('invalid_state_transition', 'A voice clone of this character is already in progress.', { from: 'cloning', action: 'clone' }) : null;
}

/** Credits of a speech: 1 per started 100 characters (contract §3). */
export function speechCredits(characters: number, per100: number): number {
  return Math.max(1, Math.ceil(characters / 100)) * per100;
}

/** Where an audio clip's bytes live. */
export function audioKey(characterId: string, audioId: string, ext: string): string {
  return `audio/${characterId}/${audioId}.${ext}`;
}

/** Where a clone's samples wait for the job. */
export function sampleKey(characterId: string, voiceRowId: string, index: number, ext: string): string {
  return `voice-samples/${characterId}/${voiceRowId}-${index}.${ext}`;
}
