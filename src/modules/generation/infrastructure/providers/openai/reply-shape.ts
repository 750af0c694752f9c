import type { CaptionDraft, CaptionStyle, PlannedPost } from '../../../application/ports/index.js';
import { CAPTION_MAX_CHARS, CTA_MAX_CHARS, HASHTAGS_MAX, IMAGE_PROMPT_MAX_CHARS, normaliseHashtags } from '../shared/caption-rules.js';
import { containsLink, fitReply, unquote } from '../shared/reply-rules.js';
import type { WeekSlot } from '../shared/week-slots.js';

/** A model reply that does not have the shape we asked for; worth one more try. */
export class ReplyShapeError extends Error {}

type Obj = Record<string, unknown>;

function object(value: unknown, where: string): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ReplyShapeError(`${where} is not an object`);
  return value as Obj;
}

function text(value: unknown, where: string, max: number, allowEmpty = false): string {
  if (typeof value !== 'string') throw new ReplyShapeError(`${where} is not a string`);
  const trimmed = value.trim();
  if (!allowEmpty && trimmed === '') throw new ReplyShapeError(`${where} is empty`);
  if (trimmed.length > max) throw new ReplyShapeError(`${where} is longer than ${max} characters`);
  return trimmed;
}

function hashtags(value: unknown, where: string): string[] {
  if (!Array.isArray(value)) throw new ReplyShapeError(`${where} is not a list`);
  if (value.length > HASHTAGS_MAX) throw new ReplyShapeError(`${where} has more than ${HASHTAGS_MAX} tags`);
  for (const tag of value) {
    if (typeof tag !== 'string' || !/^#?[\p{L}\p{N}_]+$/u.test(tag.trim())) throw new ReplyShapeError(`${where} holds something that is not a hashtag`);
  }
  return normaliseHashtags(value as string[]);
}

/** The JSON object inside a chat completion's content. */
export function replyObject(content: unknown): Obj {
  if (typeof content !== 'string') throw new ReplyShapeError('the reply has no text content');
  try {
    return object(JSON.parse(content), 'the reply');
  } catch (err) {
    throw err instanceof ReplyShapeError ? err : new ReplyShapeError('the reply is not JSON');
  }
}

export function captionDraft(value: unknown, where: string, language: string): CaptionDraft {
  const o = object(value, where);
  return {
    caption: text(o.caption, `${where}.caption`, CAPTION_MAX_CHARS),
    hashtags: hashtags(o.hashtags, `${where}.hashtags`),
    cta: text(o.cta ?? '', `${where}.cta`, CTA_MAX_CHARS, true),
    language,
  };
}

/** Exactly the styles asked for, each once, answered in the order asked. */
export function captionVariants(reply: Obj, styles: CaptionStyle[], language: string): Array<CaptionDraft & { style: CaptionStyle }> {
  const list = reply.variants;
  if (!Array.isArray(list) || list.length !== styles.length) throw new ReplyShapeError(`variants must be a list of ${styles.length}`);
  const byStyle = new Map<string, CaptionDraft>();
  list.forEach((item, i) => {
    const style = object(item, `variants[${i}]`).style;
    if (typeof style !== 'string' || !styles.includes(style as CaptionStyle) || byStyle.has(style)) throw new ReplyShapeError(`variants[${i}].style is not one of the styles asked for`);
    byStyle.set(style, captionDraft(item, `variants[${i}]`, language));
  });
  return styles.map((style) => ({ style, ...byStyle.get(style)! }));
}

/** One post per slot we planned: same day, slot, platform and content type; nothing extra. */
export function weekPosts(reply: Obj, slots: WeekSlot[], language: string): PlannedPost[] {
  const list = reply.posts;
  if (!Array.isArray(list) || list.length !== slots.length) throw new ReplyShapeError(`posts must be a list of ${slots.length}`);
  const bySlot = new Map(slots.map((s) => [`${s.day}:${s.slot}`, s]));
  const posts = new Map<string, PlannedPost>();
  list.forEach((item, i) => {
    const o = object(item, `posts[${i}]`);
    const key = `${String(o.day)}:${String(o.slot)}`;
    const slot = Number.isInteger(o.day) && Number.isInteger(o.slot) ? bySlot.get(key) : undefined;
    if (!slot || posts.has(key)) throw new ReplyShapeError(`posts[${i}] is not one of the planned day and slot pairs`);
    if (o.platform !== slot.platform) throw new ReplyShapeError(`posts[${i}].platform is not the planned ${slot.platform}`);
    const draft = captionDraft(o, `posts[${i}]`, language);
    const imagePrompt = text(o.image_prompt, `posts[${i}].image_prompt`, IMAGE_PROMPT_MAX_CHARS);
    posts.set(key, { ...draft, day: slot.day, slot: slot.slot, platform: slot.platform, contentType: slot.contentType, imagePrompt });
  });
  return slots.map((s) => posts.get(`${s.day}:${s.slot}`)!);
}

/**
 * The reply text in a plain-text chat completion: trimmed, without wrapping quotes or a leading
 * "Name:" (models imitate the thread's "name: text" lines), cut to `maxLength`. Empty text and
 * text with a link are refused (the audience may have asked for one).
 */
export function replyText(content: unknown, characterName: string, maxLength: number): string {
  if (typeof content !== 'string') throw new ReplyShapeError('the reply has no text content');
  let text = unquote(content);
  const named = `${characterName}:`;
  if (text.toLowerCase().startsWith(named.toLowerCase())) text = unquote(text.slice(named.length));
  if (text === '') throw new ReplyShapeError('the reply is empty');
  if (containsLink(text)) throw new ReplyShapeError('the reply contains a link');
  return fitReply(text, maxLength);
}
