import { describe, expect, it } from '@jest/globals';
import { LUNA } from '../spec-fixtures.js';
import { addressable, containsLink, firstReplyGreeting, fitReply, unquote } from './reply-rules.js';

describe('reply rules', () => {
  it('strips quotes that wrap the whole text, and only those', () => {
    expect(unquote('  "Thanks so much!"\n')).toBe('Thanks so much!');
    expect(unquote('“Merci !”')).toBe('Merci !');
    expect(unquote('«"Nested"»')).toBe('Nested');
    expect(unquote('"Wow" is right, "Ana"')).toBe('"Wow" is right, "Ana"');
    expect(unquote('"')).toBe('"');
  });

  it('keeps text that fits; cuts at a sentence end, else a word boundary with an ellipsis, within the limit', () => {
    const text = 'Thanks so much for asking! I water every morning before work. It keeps the roots happy all summer long.';
    expect(fitReply(text, 200)).toBe(text);
    expect(fitReply(text, 70)).toBe('Thanks so much for asking! I water every morning before work.');
    expect(fitReply(text, 40)).toBe('Thanks so much for asking!');
    expect(fitReply('Watering every single morning keeps roots happy', 20)).toBe('Watering every…');
    expect(fitReply('Supercalifragilistic', 8)).toBe('Superca…');
    expect(fitReply('🌿🌿🌿🌿', 5)).toBe('🌿🌿…');
    for (let max = 1; max < text.length; max++) expect(fitReply(text, max).length).toBeLessThanOrEqual(max);
  });

  it('finds links, and addresses people by a plain name only', () => {
    expect(containsLink('see https://x.example')).toBe(true);
    expect(containsLink('go to www.spam.shop now')).toBe(true);
    expect(containsLink('Node.js is great')).toBe(false);
    expect(addressable(' @maria_g ')).toBe('maria_g');
    expect(addressable('a\nb')).toBeUndefined();
    expect(addressable('x'.repeat(41))).toBeUndefined();
    expect(addressable('http://spam')).toBeUndefined();
  });

  it('uses the greeting only before the character has spoken', () => {
    const req = { character: LUNA, platform: 'x', channel: 'dm' as const, maxLength: 280, greeting: ' Hello! ' };
    expect(firstReplyGreeting({ ...req, thread: [{ from: 'audience', text: 'hi' }] })).toBe('Hello!');
    expect(firstReplyGreeting({ ...req, thread: [{ from: 'character', text: 'hey' }, { from: 'audience', text: 'hi' }] })).toBeUndefined();
    expect(firstReplyGreeting({ ...req, greeting: null, thread: [{ from: 'audience', text: 'hi' }] })).toBeUndefined();
  });
});
