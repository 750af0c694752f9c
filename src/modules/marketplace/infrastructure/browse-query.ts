import type { ListingSort } from '../domain/listing.js';
import { LISTING_COLUMNS } from './listing-row.js';

/** A browse request: active listings only; every filter optional. Prices are in credits. */
export interface ListingSearch {
  q?: string;
  niche?: string;
  minPrice?: number;
  maxPrice?: number;
  minRating?: number;
  sort: ListingSort;
  limit: number;
  offset: number;
}

export interface SqlStatement {
  /** A stable name per statement shape, for a named prepared statement. */
  name: string;
  text: string;
  values: unknown[];
}

/** Each order ends on the id, so pages never overlap or skip; each has a partial index. */
const ORDER: Readonly<Record<ListingSort, string>> = {
  newest: 'created_at DESC, id DESC',
  price_asc: 'price_credits ASC, id ASC',
  price_desc: 'price_credits DESC, id DESC',
  rating: 'rating DESC NULLS LAST, rating_count DESC, id DESC',
  popular: 'sales_count DESC, id DESC',
};

function conditions(s: ListingSearch): { where: string; values: unknown[]; shape: string } {
  const parts = [`status = 'active'`];
  const values: unknown[] = [];
  let shape = '';
  const add = (flag: string, sql: (p: string) => string, value: unknown) => {
    values.push(value);
    parts.push(sql(`$${values.length}`));
    shape += flag;
  };
  if (s.q !== undefined) add('q', (p) => `search @@ websearch_to_tsquery('english', ${p})`, s.q);
  if (s.niche !== undefined) add('n', (p) => `lower(niche) = lower(${p})`, s.niche);
  if (s.minPrice !== undefined) add('l', (p) => `price_credits >= ${p}`, s.minPrice);
  if (s.maxPrice !== undefined) add('h', (p) => `price_credits <= ${p}`, s.maxPrice);
  if (s.minRating !== undefined) add('r', (p) => `rating >= ${p}`, s.minRating);
  return { where: parts.join(' AND '), values, shape };
}

/**
 * One round trip for a page and its total. Without filters the total is the trigger-kept counter
 * (counting every active listing would dominate the request); with filters it is a count over the
 * same conditions, which the partial indexes keep small.
 */
export function browsePage(s: ListingSearch): SqlStatement {
  const { where, values, shape } = conditions(s);
  const total = shape === ''
    ? '(SELECT active_listings FROM marketplace_stats WHERE singleton)'
    : `(SELECT count(*) FROM marketplace_listings WHERE ${where})`;
  const n = values.length;
  return {
    name: `mkt_browse_${shape || 'all'}_${s.sort}`,
    text: `SELECT ${LISTING_COLUMNS}, ${total} AS total FROM marketplace_listings
      WHERE ${where} ORDER BY ${ORDER[s.sort]} LIMIT $${n + 1} OFFSET $${n + 2}`,
    values: [...values, s.limit, s.offset],
  };
}

/** The total alone, for a page past the end (it has no rows to carry the total). */
export function browseTotal(s: ListingSearch): SqlStatement {
  const { where, values, shape } = conditions(s);
  return {
    name: `mkt_count_${shape || 'all'}`,
    text: `SELECT count(*) AS total FROM marketplace_listings WHERE ${where}`,
    values,
  };
}
