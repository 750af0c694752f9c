import { describe, expect, it } from '@jest/globals';
import { CAPTION_STYLES, type CaptionRequest, type ReplyDraftRequest, type WeekPlanRequest } from '../../../application/ports/index.js';
import { LUNA, rejection } from '../spec-fixtures.js';
import { LocalTextGenerator } from './local-text-generator.js';
import { PHRASEBOOKS } from './phrasebook.js';
import { REPLY_PHRASEBOOKS } from './reply-phrasebook.js';

const generator = new LocalTextGenerator();
const captionRequest: CaptionRequest = { character: LUNA, prompt: 'first tomatoes of the season', platform: 'instagram', contentType: 'single' };
const week: WeekPlanRequest = {
  character: LUNA,
  days: 7,
  postsPerDay: 3,
  platforms: ['instagram', 'tiktok', 'twitter', 'pinterest'],
  trendingTopics: ['heatwave watering', 'balcony compost', 'seed swaps'],
  language: 'en',
};

describe('LocalTextGenerator captions', () => {
  it('writes about the prompt in the character’s niche and tone', async () => {
    const draft = await generator.caption(captionRequest);
    expect(draft.caption.toLowerCase()).toContain('first tomatoes of the season');
    expect(draft.caption).toContain('✨');
    expect(draft.hashtags).toEqual(expect.arrayContaining(['urbangardening', 'tomatoes']));
    expect(draft.hashtags.every((t) => !t.startsWith('#'))).toBe(true);
    expect(draft.cta.length).toBeGreaterThan(0);
  });

  it('keeps the prompt’s capitalisation, in every style and language', async () => {
    const prompt = 'Sunrise run in Central Park';
    for (const language of Object.keys(PHRASEBOOKS)) {
      const variants = await generator.variants({ ...captionRequest, prompt, language, styles: [...CAPTION_STYLES] });
      for (const v of variants) expect([language, v.style, v.caption.includes(prompt)]).toEqual([language, v.style, true]);
      expect((await generator.caption({ ...captionRequest, prompt, language })).caption).toContain(prompt);
    }
    const [punchy] = await generator.variants({ ...captionRequest, prompt: 'NYC rooftop garden tour!', styles: ['punchy'] });
    expect(punchy.caption.startsWith('NYC rooftop garden tour.')).toBe(true);
  });

  it('gives the same text for the same request', async () => {
    expect(await generator.caption(captionRequest)).toEqual(await generator.caption(captionRequest));
    expect(await generator.variants({ ...captionRequest, styles: [...CAPTION_STYLES] })).toEqual(await generator.variants({ ...captionRequest, styles: [...CAPTION_STYLES] }));
  });

  it('writes one distinct variant per style, from that style’s templates', async () => {
    const variants = await generator.variants({ ...captionRequest, styles: [...CAPTION_STYLES] });
    expect(variants.map((v) => v.style)).toEqual([...CAPTION_STYLES]);
    expect(new Set(variants.map((v) => v.caption)).size).toBe(4);
    const byStyle = Object.fromEntries(variants.map((v) => [v.style, v.caption]));
    expect(byStyle['question-led']).toContain('?');
    expect(byStyle.punchy.startsWith('First tomatoes of the season.')).toBe(true);
    expect(byStyle['story-led'].length).toBeGreaterThan(byStyle.punchy.length);
  });

  it.each(Object.keys(PHRASEBOOKS))('writes %s from that language’s templates', async (language) => {
    const [variant] = await generator.variants({ ...captionRequest, language, styles: ['cta-led'] });
    const templates = PHRASEBOOKS[language].styles['cta-led'].map((t) => t.split('{')[0]);
    expect(templates.some((start) => variant.caption.startsWith(start))).toBe(true);
    expect(variant.language).toBe(language);
    expect(PHRASEBOOKS[language].ctas).toContain(variant.cta);
  });

  it('falls back to English for other languages but keeps their tag, and reads regional tags', async () => {
    const ja = await generator.caption({ ...captionRequest, language: 'ja' });
    const en = await generator.caption({ ...captionRequest, language: 'en' });
    expect(ja.language).toBe('ja');
    expect(PHRASEBOOKS.en.ctas).toContain(ja.cta);
    expect(en.language).toBe('en');
    const [ptBr] = await generator.variants({ ...captionRequest, language: 'pt-BR', styles: ['punchy'] });
    expect(ptBr.language).toBe('pt-BR');
    expect(PHRASEBOOKS.pt.ctas).toContain(ptBr.cta);
  });
});

describe('LocalTextGenerator week plans', () => {
  it('plans days × posts per day, platforms round-robin, every day and slot once', async () => {
    const posts = await generator.planWeek(week);
    expect(posts).toHaveLength(21);
    expect(posts.map((p) => `${p.day}:${p.slot}`)).toEqual(Array.from({ length: 21 }, (_, i) => `${Math.floor(i / 3)}:${i % 3}`));
    expect(posts.map((p) => p.platform)).toEqual(Array.from({ length: 21 }, (_, i) => week.platforms[i % 4]));
    for (const p of posts) {
      expect(p.caption.length).toBeGreaterThan(0);
      expect(p.caption.length).toBeLessThanOrEqual(2200);
      expect(p.imagePrompt).toContain('Luna');
      expect(p.hashtags.length).toBeLessThanOrEqual(30);
    }
  });

  it('gives each platform a content type it can publish', async () => {
    const posts = await generator.planWeek(week);
    const typesOn = (platform: string) => new Set(posts.filter((p) => p.platform === platform).map((p) => p.contentType));
    expect([...typesOn('tiktok')].every((t) => ['video', 'reel', 'short'].includes(t))).toBe(true);
    expect([...typesOn('twitter')]).toEqual(['single']);
    expect([...typesOn('pinterest')].every((t) => ['single', 'carousel'].includes(t))).toBe(true);
  });

  it('weaves every trending topic into the plan', async () => {
    const posts = await generator.planWeek(week);
    for (const topic of week.trendingTopics) expect(posts.some((p) => p.caption.toLowerCase().includes(topic))).toBe(true);
  });

  it('never reads the guidance as a topic: it is an instruction, not something to write about', async () => {
    const guidance = 'Keep it upbeat and mention the spring sale';
    const posts = await generator.planWeek({ ...week, trendingTopics: [], guidance });
    for (const p of posts) {
      expect(p.caption.toLowerCase()).not.toContain('keep it upbeat');
      expect(p.imagePrompt.toLowerCase()).not.toContain('keep it upbeat');
      expect(p.hashtags).not.toContain('upbeat');
    }
  });

  it('writes the plan in the requested language, deterministically', async () => {
    const plan = await generator.planWeek({ ...week, language: 'de', days: 2, postsPerDay: 1 });
    expect(plan.every((p) => p.language === 'de')).toBe(true);
    expect(PHRASEBOOKS.de.ctas).toContain(plan[0].cta);
    expect(await generator.planWeek({ ...week, language: 'de', days: 2, postsPerDay: 1 })).toEqual(plan);
  });

  it('plans for Instagram when no platform is given', async () => {
    const posts = await generator.planWeek({ ...week, platforms: [], days: 1, postsPerDay: 2 });
    expect(posts.map((p) => p.platform)).toEqual(['instagram', 'instagram']);
  });
});

describe('LocalTextGenerator replies', () => {
  const comment: ReplyDraftRequest = {
    character: LUNA,
    platform: 'instagram',
    channel: 'comment',
    thread: [{ from: 'audience', text: 'How often do you water the tomatoes?', author: '@maria_g' }],
    maxLength: 2200,
  };
  const FORMAL = { ...LUNA, tone: 'professional, warm' };

  it('greets the author by name and answers a question from the character’s niche, in a playful tone', async () => {
    const { text } = await generator.reply(comment);
    expect(text).toMatch(/^(Hey|Hiya) maria_g! (Great|Good) question!/);
    expect(text).toContain('urban gardening');
    expect(text.endsWith(' ✨')).toBe(true);
    expect(text).not.toContain('water the tomatoes');
  });

  it('addresses a formal character’s audience neutrally, without emoji', async () => {
    const { text } = await generator.reply({ ...comment, character: FORMAL });
    expect(text).toMatch(/^(Hi|Hello) maria_g! /);
    expect(text).not.toMatch(/\p{Extended_Pictographic}/u);
  });

  it('thanks a compliment, welcomes thanks, and acknowledges anything else per channel', async () => {
    const say = async (text: string, channel: 'comment' | 'dm' = 'comment') =>
      (await generator.reply({ ...comment, channel, character: FORMAL, thread: [{ from: 'audience', text }] })).text;
    expect(REPLY_PHRASEBOOKS.en.thanks).toContain(await say('Love this balcony, so beautiful 😍'));
    expect(REPLY_PHRASEBOOKS.en.welcome).toContain(await say('Thanks for the tip, it worked'));
    expect(REPLY_PHRASEBOOKS.en.acknowledge.comment).toContain(await say('I planted basil today'));
    expect(REPLY_PHRASEBOOKS.en.acknowledge.dm).toContain(await say('I planted basil today', 'dm'));
    const both = await say('Amazing garden! Which soil do you use?');
    expect(both).toMatch(/^(Thank you so much|Aw, thank you).*(Great|Good) question!/);
  });

  it('opens the first reply with the owner’s greeting, and only the first', async () => {
    const greeting = 'Welcome to the garden club!';
    const first = await generator.reply({ ...comment, greeting });
    expect(first.text.startsWith(`${greeting} `)).toBe(true);
    expect(first.text).not.toContain('maria_g');
    const later = await generator.reply({
      ...comment,
      greeting,
      thread: [{ from: 'audience', text: 'Hi Luna!' }, { from: 'character', text: 'Hi there!' }, ...comment.thread],
    });
    expect(later.text).not.toContain(greeting);
    expect(later.text).toContain('maria_g');
  });

  it('stays within maxLength, dropping the opening and emoji before the answer, and cutting as a last resort', async () => {
    const full = (await generator.reply(comment)).text;
    for (const maxLength of [full.length, full.length - 1, 90, 60, 20, 1]) {
      const { text } = await generator.reply({ ...comment, maxLength });
      expect([maxLength, text.length <= maxLength, text.trim().length > 0]).toEqual([maxLength, true, true]);
    }
    expect((await generator.reply({ ...comment, maxLength: full.length })).text).toBe(full);
    expect((await generator.reply({ ...comment, maxLength: full.length - 1 })).text).toMatch(/question!/);
  });

  it('gives the same reply for the same thread, and answers in the requested language', async () => {
    expect(await generator.reply(comment)).toEqual(await generator.reply(comment));
    const es = await generator.reply({ ...comment, language: 'es-MX', thread: [{ from: 'audience', text: '¿Cada cuánto riegas?', author: 'Ana' }] });
    expect(es.text).toMatch(/^¡(Hola|Hey), Ana! ¡Buena pregunta!/);
  });

  it('refuses a thread that does not end with an audience message', async () => {
    const own = await rejection(generator.reply({ ...comment, thread: [...comment.thread, { from: 'character', text: 'Daily!' }] }));
    expect(own.details).toMatchObject({ provider: 'local', reason: 'bad_input' });
    expect((await rejection(generator.reply({ ...comment, thread: [] }))).details).toMatchObject({ reason: 'bad_input' });
    expect((await rejection(generator.reply({ ...comment, maxLength: 0 }))).details).toMatchObject({ reason: 'bad_input' });
  });
});
