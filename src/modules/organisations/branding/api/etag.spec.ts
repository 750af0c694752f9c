import { matchesIfNoneMatch, strongEtag } from './public-branding.controller.js';

describe('branding ETag', () => {
  it('is strong and follows the bytes', () => {
    const a = strongEtag('{"branding":{"display_name":"A"}}');
    expect(a).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(strongEtag('{"branding":{"display_name":"A"}}')).toBe(a);
    expect(strongEtag('{"branding":{"display_name":"B"}}')).not.toBe(a);
  });

  it('matches If-None-Match lists, * and weak forms of the tag', () => {
    const tag = strongEtag('x');
    expect(matchesIfNoneMatch(undefined, tag)).toBe(false);
    expect(matchesIfNoneMatch('"other"', tag)).toBe(false);
    expect(matchesIfNoneMatch(`"other", ${tag}`, tag)).toBe(true);
    expect(matchesIfNoneMatch(`W/${tag}`, tag)).toBe(true);
    expect(matchesIfNoneMatch(' * ', tag)).toBe(true);
  });
});
