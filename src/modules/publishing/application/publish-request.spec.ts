import { describe, expect, it } from '@jest/globals';
import { postText, postTitle } from './publish-request.js';

describe('postText', () => {
  it('joins caption, call to action and hashtags with blank lines', () => {
    expect(postText({ caption: 'Sunrise run.', cta: 'Follow for more', hashtags: ['running', '#sunrise'] })).toBe('Sunrise run.\n\nFollow for more\n\n#running #sunrise');
  });

  it("adds '#' only where missing", () => {
    expect(postText({ caption: null, cta: null, hashtags: ['#a', 'b', '#c'] })).toBe('#a #b #c');
  });

  it('skips empty parts and trims the others', () => {
    expect(postText({ caption: '  Hello  ', cta: null, hashtags: [] })).toBe('Hello');
    expect(postText({ caption: null, cta: 'Shop now', hashtags: ['x'] })).toBe('Shop now\n\n#x');
    expect(postText({ caption: '   ', cta: '', hashtags: ['x'] })).toBe('#x');
    expect(postText({ caption: 'Hi', cta: ' ', hashtags: [] })).toBe('Hi');
    expect(postText({ caption: null, cta: null, hashtags: [] })).toBe('');
  });

  it('keeps line breaks inside the caption', () => {
    expect(postText({ caption: 'Line one\nLine two', cta: null, hashtags: ['t'] })).toBe('Line one\nLine two\n\n#t');
  });
});

describe('postTitle', () => {
  it("takes the caption's first line", () => {
    expect(postTitle({ caption: 'Morning run by the river\nSecond line', imagePrompt: 'a runner' })).toBe('Morning run by the river');
    expect(postTitle({ caption: '  Padded title  \nrest', imagePrompt: 'p' })).toBe('Padded title');
  });

  it('falls back to the image prompt without a caption or with an empty first line', () => {
    expect(postTitle({ caption: null, imagePrompt: 'a runner at dawn' })).toBe('a runner at dawn');
    expect(postTitle({ caption: '', imagePrompt: 'a runner at dawn' })).toBe('a runner at dawn');
    expect(postTitle({ caption: '\nsecond line', imagePrompt: 'a runner at dawn' })).toBe('a runner at dawn');
    expect(postTitle({ caption: '   \nx', imagePrompt: 'a runner at dawn' })).toBe('a runner at dawn');
  });

  it('keeps a first line of exactly 100 characters', () => {
    const line = 'a'.repeat(100);
    expect(postTitle({ caption: line, imagePrompt: 'p' })).toBe(line);
  });

  it("cuts a longer line at a word, with '…', within 100 characters", () => {
    const line = 'abcdef '.repeat(20).trim(); // 139 characters; character 99 is inside a word
    const title = postTitle({ caption: line, imagePrompt: 'p' });
    expect(title).toBe(`${Array(14).fill('abcdef').join(' ')}…`);
    expect(title.length).toBe(98);
  });

  it('cuts hard at 99 characters when there is no space late enough', () => {
    const line = `short ${'x'.repeat(150)}`;
    expect(postTitle({ caption: line, imagePrompt: 'p' })).toBe(`${line.slice(0, 99)}…`);
    expect(postTitle({ caption: 'y'.repeat(101), imagePrompt: 'p' })).toBe(`${'y'.repeat(99)}…`);
    expect(postTitle({ caption: 'y'.repeat(101), imagePrompt: 'p' })).toHaveLength(100);
  });

  it('cuts a long image prompt the same way', () => {
    const prompt = 'cinematic photo of '.repeat(10).trim();
    const title = postTitle({ caption: null, imagePrompt: prompt });
    expect(title.length).toBeLessThanOrEqual(100);
    expect(title.endsWith('…')).toBe(true);
    expect(prompt.startsWith(title.slice(0, -1))).toBe(true);
    expect(prompt[title.length - 1]).toBe(' ');
  });

  it('never splits an emoji in half', () => {
    const title = postTitle({ caption: `Go! ${'🔥'.repeat(60)}`, imagePrompt: 'p' });
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(title)).toBe(false);
  });
});
