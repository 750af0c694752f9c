import { describe, expect, it } from '@jest/globals';
import { isLive, isPreviewUrl, isVisibleTo, listingChanges, newListing, priceCredits, sellerShare, shownPreviews, statusAfterSale } from './listing.js';

describe('priceCredits', () => {
  it('is ceil(price × rate) for each currency', () => {
    expect(priceCredits(100, 'credits')).toBe(100);
    expect(priceCredits(0.5, 'credits')).toBe(1);
    expect(priceCredits(9.99, 'USD')).toBe(100);
    expect(priceCredits(10, 'USD')).toBe(100);
    expect(priceCredits(1.01, 'EUR')).toBe(12);
    expect(priceCredits(1, 'GBP')).toBe(13);
    expect(priceCredits(0.01, 'GBP')).toBe(1);
  });

  it('does not tip over on float representation', () => {
    // 0.1 × 10 and 2.3 × 10 are not exact in binary floating point
    expect(priceCredits(0.1, 'USD')).toBe(1);
    expect(priceCredits(2.3, 'USD')).toBe(23);
    expect(priceCredits(1_000_000, 'GBP')).toBe(13_000_000);
  });
});

describe('sellerShare', () => {
  it('is 80% rounded down', () => {
    expect(sellerShare(100)).toBe(80);
    expect(sellerShare(99)).toBe(79);
    expect(sellerShare(1)).toBe(0);
    expect(sellerShare(13_000_000)).toBe(10_400_000);
  });
});

describe('statuses', () => {
  it('counts draft, active and paused as live', () => {
    expect(['draft', 'active', 'paused'].every((s) => isLive(s as never))).toBe(true);
    expect(isLive('sold')).toBe(false);
    expect(isLive('removed')).toBe(false);
  });

  it('closes an exclusive listing after its sale, leaves others as they are', () => {
    expect(statusAfterSale({ status: 'active', licenseType: 'exclusive' })).toBe('sold');
    expect(statusAfterSale({ status: 'active', licenseType: 'personal' })).toBe('active');
  });

  it('shows active listings to anyone, the rest to the seller only, removed ones to nobody', () => {
    const l = (status: string) => ({ status: status as never, sellerWorkspaceId: 'ws_s' });
    expect(isVisibleTo(l('active'), 'ws_x')).toBe(true);
    expect(isVisibleTo(l('paused'), 'ws_x')).toBe(false);
    expect(isVisibleTo(l('paused'), 'ws_s')).toBe(true);
    expect(isVisibleTo(l('sold'), 'ws_s')).toBe(true);
    expect(isVisibleTo(l('removed'), 'ws_s')).toBe(false);
  });
});

describe('previews', () => {
  it("falls back to the template's images", () => {
    expect(shownPreviews({ previewImages: ['https://a/1.png'], templateImageUrls: ['https://b/1.png'] })).toEqual(['https://a/1.png']);
    expect(shownPreviews({ previewImages: [], templateImageUrls: ['https://b/1.png'] })).toEqual(['https://b/1.png']);
  });

  it('accepts http and https URLs only', () => {
    expect(isPreviewUrl('https://cdn.example.com/a.png')).toBe(true);
    expect(isPreviewUrl('http://cdn.example.com/a.png')).toBe(true);
    expect(isPreviewUrl('ftp://cdn.example.com/a.png')).toBe(false);
    expect(isPreviewUrl('javascript:alert(1)')).toBe(false);
    expect(isPreviewUrl('not a url')).toBe(false);
    expect(isPreviewUrl(42)).toBe(false);
  });
});

describe('newListing and listingChanges', () => {
  const input = {
    characterId: 'char_1', price: 9.99, currency: 'USD' as const, licenseType: 'personal' as const, status: 'active' as const,
    previewImages: [], description: '',
  };
  const template = { name: 'Mia', niche: 'travel', imageUrls: ['https://x/1.png'] };
  const now = new Date('2024-01-01T00:00:00Z');

  it("takes the title from the character's name unless given, the niche always from the template", () => {
    const l = newListing('mkt_1', 'ws_1', input, template, now);
    expect(l).toMatchObject({ title: 'Mia', niche: 'travel', priceCredits: 100, templateImageUrls: ['https://x/1.png'], salesCount: 0, rating: null });
    expect(newListing('mkt_1', 'ws_1', { ...input, title: 'Mia, travel muse' }, template, now).title).toBe('Mia, travel muse');
  });

  it('recomputes price_credits when the price or the currency changes', () => {
    const l = newListing('mkt_1', 'ws_1', input, template, now);
    expect(listingChanges(l, { currency: 'GBP' }, null)).toEqual({ currency: 'GBP', priceCredits: 130 });
    expect(listingChanges(l, { price: 1 }, null)).toEqual({ price: 1, priceCredits: 10 });
    expect(listingChanges(l, { status: 'paused' }, null)).toEqual({ status: 'paused' });
  });

  it('takes the niche and images of a template frozen again', () => {
    const l = newListing('mkt_1', 'ws_1', input, template, now);
    expect(listingChanges(l, {}, { name: 'Mia', niche: 'food', imageUrls: [] })).toEqual({ niche: 'food', templateImageUrls: [] });
  });
});
