import type { ListingSort } from '../domain/listing.js';
import { LISTING_JSON } from './listing-json.js';

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
  if (s.niche !== undefined) add('n', (p) => `niche_key = lower(${p})`, s.niche);
  if (s.minPrice !== undefined) add('l', (p) => `price_credits >= ${p}`, s.minPrice);
  if (s.maxPrice !== undefined) add('h', (p) => `price_credits <= ${p}`, s.maxPrice);
  if (s.minRating !== undefined) add('r', (p) => `rating >= ${p}`, s.minRating);
  return { where: parts.join(' AND '), values, shape };
}

/** Columns the orders need, kept by the text-search pass so it never returns to the table. */
const SORT_COLUMNS = 'id, created_at, price_credits, rating, rating_count, sales_count';

/**
 * One round trip for a page and its total, answered as one row: the page as a JSON array of wire
 * listings, and the total. The page's ids are picked first (from an index alone where one covers
 * the filter and the order), then only those rows are read. The total: without filters, the
 * trigger-kept counter (counting every active listing would dominate the request); otherwise a
 * count over the same conditions, which the covering indexes answer.
 */
export function browsePage(s: ListingSearch): SqlStatement {
  if (s.q !== undefined) return textSearchPage(s);
  const { where, values, shape } = conditions(s);
  const n = values.length;
  const total = shape === '' ? '(SELECT active_listings FROM marketplace_stats WHERE singleton)' : `(SELECT count(*) FROM marketplace_listings WHERE ${where})`;
  const page = `SELECT id, ${total} AS total FROM marketplace_listings
      WHERE ${where} ORDER BY ${ORDER[s.sort]} LIMIT $${n + 1} OFFSET $${n + 2}`;
  return {
    name: `mkt_browse_${shape || 'all'}_${s.sort}`,
    text: `${AS_JSON_PAGE(s.sort)} FROM (${page}) page JOIN marketplace_listings USING (id)`,
    values: [...values, s.limit, s.offset],
  };
}

/** The page's listings in order as one JSON array (empty when none), and the total it carries. */
const AS_JSON_PAGE = (sort: ListingSort) =>
  `SELECT coalesce(json_agg(${LISTING_JSON} ORDER BY ${ORDER[sort]}), '[]'::json) AS listings, max(page.total) AS total`;

/**
 * A text search reads every match from the table (the GIN index knows no order), so it does so
 * once: the matches are materialised with their sort columns, then counted and paged. Written
 * as a fence on purpose: otherwise the planner may walk a sort index and filter 100,000 rows.
 */
function textSearchPage(s: ListingSearch): SqlStatement {
  const { where, values, shape } = conditions(s);
  const n = values.length;
  return {
    name: `mkt_browse_${shape}_${s.sort}`,
    text: `WITH matches AS MATERIALIZED (SELECT ${SORT_COLUMNS} FROM marketplace_listings WHERE ${where})
      ${AS_JSON_PAGE(s.sort)}
      FROM (SELECT id, (SELECT count(*) FROM matches) AS total FROM matches ORDER BY ${ORDER[s.sort]} LIMIT $${n + 1} OFFSET $${n + 2}) page
      JOIN marketplace_listings USING (id)`,
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
