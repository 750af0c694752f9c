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

/**
 * Writes captions, caption variants and week plans. Adapters: any OpenAI-compatible chat
 * completions server (hosted or self-hosted), local templates.
 */
export abstract class TextGenerator {
  abstract caption(req: CaptionRequest, signal?: AbortSignal): Promise<CaptionDraft>;
  abstract variants(req: CaptionRequest & { styles: CaptionStyle[] }, signal?: AbortSignal): Promise<Array<CaptionDraft & { style: CaptionStyle }>>;
  abstract planWeek(req: WeekPlanRequest, signal?: AbortSignal): Promise<PlannedPost[]>;
}
