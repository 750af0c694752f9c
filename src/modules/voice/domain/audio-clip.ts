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

/** How much of a clip's text a list shows. */
export const CLIP_EXCERPT_CHARS = 80;

/**
 * The start of a clip's text for a list: whole code points (an emoji is never cut in two), at most
 * `max` of them, an ellipsis saying when there is more.
 */
export function textExcerpt(text: string, max = CLIP_EXCERPT_CHARS): string {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('').trimEnd()}…`;
}
