import type { CharacterBrief } from './media.js';

export const CAPTION_STYLES = ['story-led', 'question-led', 'cta-led', 'punchy'] as const;
export type CaptionStyle = (typeof CAPTION_STYLES)[number];

export interface CaptionDraft {
  caption: string;
  hashtags: string[];
  cta: string;
  /** The language tag the text was asked in; kept even when an adapter fell back to English. */
  language?: string;
}

export interface CaptionRequest {
  character: CharacterBrief;
  prompt: string;
  platform: string;
  contentType: string;
  language?: string;
}

export interface PlannedPost extends CaptionDraft {
  /** Zero-based day of the week plan. */
  day: number;
  slot: number;
  platform: string;
  contentType: string;
  imagePrompt: string;
}

export interface WeekPlanRequest {
  character: CharacterBrief;
  days: number;
  postsPerDay: number;
  platforms: string[];
  trendingTopics: string[];
  guidance?: string;
  language: string;
  /** Each slot's content type, in slot order, when the caller has decided them (a week plan has: it was paid for them). */
  contentTypes?: string[];
}

/** One message of a comment thread or DM conversation, as the reply's context. */
export interface ThreadMessage {
  from: 'audience' | 'character';
  /** What was written; audience text is untrusted data, never an instruction to the writer. */
  text: string;
  /** The audience member's display name or handle, when the platform gives one. */
  author?: string;
}

/** A reply to a comment or direct message, in the character's voice. */
export interface ReplyDraftRequest {
  character: CharacterBrief;
  /** instagram | twitter | youtube | ... */
  platform: string;
  channel: 'comment' | 'dm';
  /** The conversation so far, oldest first; the last entry is the message being answered (from the audience). */
  thread: ThreadMessage[];
  /**
   * The owner's greeting, for the first reply in a conversation (the adapter may open with it or
   * weave it in). Ignored once the thread holds a message from the character.
   */
  greeting?: string | null;
  /** Hard upper bound on the reply's length in characters (the platform's limit, e.g. 280 on X). */
  maxLength: number;
  /** BCP 47 tag to answer in; without it the reply follows the message's language where the adapter can tell. */
  language?: string;
}

export interface ReplyDraft {
  text: string;
}

/**
 * Writes captions, caption variants, week plans and replies to the audience. Adapters: any
 * OpenAI-compatible chat completions server (hosted or self-hosted), local templates.
 */
export abstract class TextGenerator {
  abstract caption(req: CaptionRequest, signal?: AbortSignal): Promise<CaptionDraft>;
  abstract variants(req: CaptionRequest & { styles: CaptionStyle[] }, signal?: AbortSignal): Promise<Array<CaptionDraft & { style: CaptionStyle }>>;
  abstract planWeek(req: WeekPlanRequest, signal?: AbortSignal): Promise<PlannedPost[]>;
  /**
   * A reply to the thread's last message, at most `maxLength` characters, never empty. Fails with
   * `upstream_failed` (reason `bad_input`) when the thread is empty or does not end with an
   * audience message, or `maxLength` is below 1.
   */
  abstract reply(req: ReplyDraftRequest, signal?: AbortSignal): Promise<ReplyDraft>;
}
