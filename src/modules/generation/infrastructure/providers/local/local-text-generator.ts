import {
  CAPTION_STYLES,
  TextGenerator,
  type CaptionDraft,
  type CaptionRequest,
  type CaptionStyle,
  type CharacterBrief,
  type PlannedPost,
  type ReplyDraft,
  type ReplyDraftRequest,
  type WeekPlanRequest,
} from '../../../application/ports/index.js';
import { CAPTION_MAX_CHARS, hashtagsFrom, normaliseHashtags, primaryLanguage } from '../shared/caption-rules.js';
import { addressable, checkReplyRequest, firstReplyGreeting, fitReply } from '../shared/reply-rules.js';
import { seedFrom, seededRandom, pick } from '../shared/seeded.js';
import { weekSlots } from '../shared/week-slots.js';
import { fill, phrasebookFor } from './phrasebook.js';
import { intentOf, replyPhrasebookFor } from './reply-phrasebook.js';

/** Emoji that carry the character's tone; professional tones get none. */
const TONE_MARKS: Array<[RegExp, string]> = [
  [/playful|fun|cheeky|quirky|witty/i, ' ✨'],
  [/energetic|bold|motivat|fierce|hype/i, ' 🔥'],
  [/calm|soft|warm|cozy|cosy|gentle|mindful/i, ' 🌿'],
  [/romantic|dreamy|sweet/i, ' 💫'],
];

/** Tones that address people formally: no "hey", no emoji. */
const NEUTRAL_TONE = /professional|formal|serious|expert|authoritative|informative|corporate|polished/i;

/** The tone's emoji for a reply; none for a formal tone, even one that is also warm. */
function replyMark(tone: string | undefined): string {
  return NEUTRAL_TONE.test(tone ?? '') ? '' : (TONE_MARKS.find(([pattern]) => pattern.test(tone ?? ''))?.[1] ?? '');
}

/**
 * Offline text: per-language templates (en, es, fr, de, pt, it; English for the rest, with the
 * asked-for language tag kept), one template family per caption style, filled with the
 * character's niche, tone and the prompt; replies from templates chosen by what the message does
 * (asks, compliments, thanks). The same request always gives the same text.
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

  /**
   * Opens with the owner's greeting on the first reply, else greets the author by name when known;
   * thanks a compliment, answers a question with a line from the character's niche, welcomes
   * thanks, or acknowledges the message; ends on the tone's emoji. What does not fit `maxLength`
   * is left out, the opening and the emoji first. Never repeats the audience's words.
   */
  async reply(req: ReplyDraftRequest): Promise<ReplyDraft> {
    checkReplyRequest('local', req);
    const message = req.thread.at(-1)!;
    const language = primaryLanguage(req.language);
    const random = seededRandom(seedFrom('reply', req.character.id, req.platform, req.channel, language, req.thread.length, message.author, message.text));
    const book = replyPhrasebookFor(language);
    const values = { niche: req.character.niche, author: addressable(message.author) ?? '' };
    const neutral = NEUTRAL_TONE.test(req.character.tone ?? '');
    const greeting = firstReplyGreeting(req);
    const opening = greeting ?? (values.author ? fillReply(pick(neutral ? book.hello.neutral : book.hello.casual, random), values) : undefined);

    const intent = intentOf(message.text);
    const lines: string[] = [];
    if (intent.compliment) lines.push(pick(book.thanks, random));
    if (intent.question) lines.push(fillReply(pick(book.question, random), values));
    else if (intent.thanks && !intent.compliment) lines.push(pick(book.welcome, random));
    if (lines.length === 0) lines.push(pick(book.acknowledge[req.channel], random));

    const mark = replyMark(req.character.tone);
    const candidates: string[] = [];
    for (const open of [opening, undefined]) {
      for (const body of [lines, lines.slice(0, 1)]) {
        for (const end of [mark, '']) candidates.push([open, ...body].filter(Boolean).join(' ') + end);
      }
    }
    const text = candidates.find((c) => c.length <= req.maxLength) ?? fitReply(lines[0], req.maxLength);
    return { text };
  }
}

function fillReply(template: string, values: { niche: string; author: string }): string {
  return template.replaceAll('{niche}', values.niche).replaceAll('{author}', values.author);
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
