import { describe, expect, it } from '@jest/globals';
import { browsePage, browseTotal, type ListingSearch } from './browse-query.js';

const base: ListingSearch = { sort: 'newest', limit: 20, offset: 0 };

describe('browsePage', () => {
  it('reads the counter for the unfiltered page and orders newest first', () => {
    const s = browsePage(base);
    expect(s.name).toBe('mkt_browse_all_newest');
    expect(s.text).toContain('FROM marketplace_stats');
    expect(s.text).toContain('ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2) page JOIN marketplace_listings USING (id)');
    expect(s.values).toEqual([20, 0]);
  });

  it('binds every filter as a parameter, never into the text', () => {
    const s = browsePage({ ...base, q: "yoga'; drop table x", niche: 'Fitness', minPrice: 10, maxPrice: 90, minRating: 4.5, sort: 'price_asc', offset: 40 });
    expect(s.name).toBe('mkt_browse_qnlhr_price_asc');
    expect(s.text).not.toContain('yoga');
    expect(s.text).toContain(`search @@ websearch_to_tsquery('english', $1)`);
    expect(s.text).toContain('niche_key = lower($2)');
    expect(s.text).toContain('price_credits >= $3 AND price_credits <= $4 AND rating >= $5');
    expect(s.text).toContain('WITH matches AS MATERIALIZED (SELECT id, created_at');
    expect(s.text).toContain('(SELECT count(*) FROM matches) AS total');
    expect(s.text).toContain('LIMIT $6 OFFSET $7');
    expect(s.values).toEqual(["yoga'; drop table x", 'Fitness', 10, 90, 4.5, 20, 40]);
  });

  it('names each shape differently, so prepared statements never mix', () => {
    const names = new Set([
      browsePage({ ...base, niche: 'a' }).name,
      browsePage({ ...base, minPrice: 1 }).name,
      browsePage({ ...base, maxPrice: 1 }).name,
      browsePage({ ...base, niche: 'a', sort: 'popular' }).name,
      browsePage({ ...base, q: 'a' }).name,
    ]);
    expect(names.size).toBe(5);
  });

  it('counts a filter without text with a separate count over the same conditions', () => {
    const s = browsePage({ ...base, niche: 'travel', maxPrice: 50 });
    expect(s.text).toContain(`(SELECT count(*) FROM marketplace_listings WHERE status = 'active' AND niche_key = lower($1) AND price_credits <= $2)`);
    expect(s.text).not.toContain('matches');
  });

  it('orders by each sort with the id last', () => {
    expect(browsePage({ ...base, sort: 'price_desc' }).text).toContain('price_credits DESC, id DESC');
    expect(browsePage({ ...base, sort: 'rating' }).text).toContain('rating DESC NULLS LAST, rating_count DESC, id DESC');
    expect(browsePage({ ...base, sort: 'popular' }).text).toContain('sales_count DESC, id DESC');
  });
});

describe('browseTotal', () => {
  it('counts active listings under the same filters', () => {
    const s = browseTotal({ ...base, niche: 'travel' });
    expect(s.text).toBe(`SELECT count(*) AS total FROM marketplace_listings WHERE status = 'active' AND niche_key = lower($1)`);
    expect(s.values).toEqual(['travel']);
  });
});
