import {
  CAPTION_STYLES,
  TextGenerator,
  type CaptionDraft,
  type CaptionRequest,
  type CaptionStyle,
  type CharacterBrief,
  type PlannedPost,
  type WeekPlanRequest,
} from '../../../application/ports/index.js';
import { CAPTION_MAX_CHARS, hashtagsFrom, normaliseHashtags, primaryLanguage } from '../shared/caption-rules.js';
import { seedFrom, seededRandom, pick } from '../shared/seeded.js';
import { weekSlots } from '../shared/week-slots.js';
import { fill, phrasebookFor } from './phrasebook.js';

/** Emoji that carry the character's tone; professional tones get none. */
const TONE_MARKS: Array<[RegExp, string]> = [
  [/playful|fun|cheeky|quirky|witty/i, ' ✨'],
  [/energetic|bold|motivat|fierce|hype/i, ' 🔥'],
  [/calm|soft|warm|cozy|cosy|gentle|mindful/i, ' 🌿'],
  [/romantic|dreamy|sweet/i, ' 💫'],
];

/**
 * Offline text: per-language templates (en, es, fr, de, pt, it; English for the rest, with the
 * asked-for language tag kept), one template family per caption style, filled with the
 * character's niche, tone and the prompt. The same request always gives the same text.
 */
export class LocalTextGenerator extends TextGenerator {
  async caption(req: CaptionRequest): Promise<CaptionDraft> {
    const random = seededRandom(seedFrom('caption', req.character.id, req.prompt, req.platform, req.contentType, req.language));
    return draft(req.character, req.prompt, pick(CAPTION_STYLES, random), req.language ?? 'en', random, []);
  }

  async variants(req: CaptionRequest & { styles: CaptionStyle[] }): Promise<Array<CaptionDraft & { style: CaptionStyle }>> {
    return req.styles.map((style) => {
      const random = seededRandom(seedFrom('variant', style, req.character.id, req.prompt, req.platform, req.language));
      return { style, ...draft(req.character, req.prompt, style, req.language ?? 'en', random, []) };
    });
  }

  async planWeek(req: WeekPlanRequest): Promise<PlannedPost[]> {
    const book = phrasebookFor(primaryLanguage(req.language));
    return weekSlots(req).map((slot, index) => {
      const random = seededRandom(seedFrom('plan', req.character.id, req.language, req.guidance, slot.day, slot.slot, slot.platform, slot.trend));
      // Guidance is an instruction to the writer ("keep it upbeat"), never a topic: templates cannot follow it, so they leave it out.
      const topic = slot.trend ?? book.themes[index % book.themes.length];
      const style = CAPTION_STYLES[index % CAPTION_STYLES.length];
      const text = draft(req.character, topic, style, req.language, random, [slot.trend]);
      return { ...text, day: slot.day, slot: slot.slot, platform: slot.platform, contentType: slot.contentType, imagePrompt: imagePrompt(req.character, topic, slot.contentType) };
    });
  }
}

function draft(character: CharacterBrief, prompt: string, style: CaptionStyle, language: string, random: () => number, extraTags: Array<string | undefined>): CaptionDraft {
  const book = phrasebookFor(primaryLanguage(language));
  const values = { topic: asTopic(prompt) || character.niche, niche: character.niche, name: character.name };
  const mark = TONE_MARKS.find(([pattern]) => pattern.test(character.tone ?? ''))?.[1] ?? '';
  const body = fill(pick(book.styles[style], random), values) + mark;
  // Some templates already ask for comments; never close on the same call twice.
  const ctas = book.ctas.filter((c) => !body.includes(c.replace(/[.!]+$/, '')));
  const cta = pick(ctas.length ? ctas : book.ctas, random);
  // A cta-led caption already closes on its call to action; the others get one appended.
  const caption = style === 'cta-led' ? body : `${body}\n\n${cta}`;
  const hashtags = normaliseHashtags([...hashtagsFrom([character.niche, prompt]), ...hashtagsFrom(extraTags, 3)]);
  return { caption: caption.slice(0, CAPTION_MAX_CHARS), hashtags, cta, language };
}

/**
 * The prompt as a phrase that reads mid-sentence: no closing punctuation, its capitals as the
 * user wrote them (a capital may belong to a name: "Central Park", "NYC", "Berlin").
 */
function asTopic(prompt: string): string {
  return prompt.trim().replace(/[.!?\s]+$/, '');
}

function imagePrompt(character: CharacterBrief, topic: string, contentType: string): string {
  const look = [character.aesthetic, ...character.stylePresets].filter(Boolean).join(', ') || 'natural light, candid';
  return `${character.name}, ${character.niche} creator, ${topic}, ${look}, ${contentType} format`;
}
