import type { VoiceFailure } from './voice.js';

/** A piece of speech made for a character: a synchronous preview, or a generation made by a job. */
export interface AudioClip {
  id: string;
  workspaceId: string;
  characterId: string;
  kind: 'preview' | 'speech';
  status: 'queued' | 'completed' | 'failed';
  text: string;
  format: 'mp3' | 'wav';
  /** The provider's voice that spoke it. */
  voiceId: string;
  storageKey: string | null;
  durationSeconds: number | null;
  characters: number;
  creditsCharged: number;
  jobId: string | null;
  error: VoiceFailure | null;
  createdAt: Date;
}
