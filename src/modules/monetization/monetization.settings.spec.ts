import { describe, expect, it } from '@jest/globals';
import { parseMonetizationSettings } from './monetization.settings.js';

describe('monetization settings', () => {
  it('defaults: flush every 5 s, a 5 s link cache, USD', () => {
    expect(parseMonetizationSettings({})).toEqual({ clickFlushMs: 5000, linkCacheMs: 5000, currency: 'USD' });
  });

  it('reads the variables, the currency in upper case', () => {
    expect(parseMonetizationSettings({ MONETIZATION_CLICK_FLUSH_MS: '100', MONETIZATION_LINK_CACHE_MS: '0', MONETIZATION_CURRENCY: 'eur' }))
      .toEqual({ clickFlushMs: 100, linkCacheMs: 0, currency: 'EUR' });
  });

  it.each([
    ['MONETIZATION_CLICK_FLUSH_MS', '5s'],
    ['MONETIZATION_CLICK_FLUSH_MS', '10'],
    ['MONETIZATION_LINK_CACHE_MS', '-1'],
    ['MONETIZATION_CURRENCY', 'dollars'],
  ])('refuses %s=%s with a line naming it', (name, raw) => {
    expect(() => parseMonetizationSettings({ [name]: raw })).toThrow(name);
  });
});
