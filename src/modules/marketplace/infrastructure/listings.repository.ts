import { Injectable } from '@nestjs/common';
import { offsetOf, type Page, type PageRequest } from '../../../core/index.js';
import { PreparedReads, type Tx } from '../../../platform/database/index.js';
import type { CharacterTemplate } from '../../characters/index.js';
import type { Listing, ListingStatus } from '../domain/listing.js';
import { browsePage, browseTotal, type ListingSearch } from './browse-query.js';
import { LISTING_JSON, type ListingJson } from './listing-json.js';
import { LISTING_COLUMNS, toListing, type ListingRow } from './listing-row.js';

/** A listing's new field values, and the template when it is frozen again. Other fields are ignored. */
export type ListingChanges = Partial<Listing> & { template?: CharacterTemplate };

type EditableField = 'title' | 'niche' | 'price' | 'currency' | 'priceCredits' | 'licenseType' | 'status' | 'previewImages' | 'templateImageUrls' | 'description';

const CHANGE_COLUMNS: ReadonlyArray<[EditableField, string, 'json'?]> = [
  ['title', 'title'],
  ['niche', 'niche'],
  ['price', 'price'],
  ['currency', 'currency'],
  ['priceCredits', 'price_credits'],
  ['licenseType', 'license_type'],
  ['status', 'status'],
  ['previewImages', 'preview_images', 'json'],
  ['templateImageUrls', 'template_image_urls', 'json'],
  ['description', 'description'],
];

export interface SellerPage extends Page<Listing> {
  salesCount: number;
  creditsEarned: number;
}

/** Marketplace listings. Seller-side methods take the seller's workspace id; browsing is public. */
@Injectable()
export class ListingsRepository {
  constructor(private readonly prepared: PreparedReads) {}

  async insert(tx: Tx, l: Listing, template: CharacterTemplate): Promise<void> {
    await tx.query(
      `INSERT INTO marketplace_listings (id, seller_workspace_id, character_id, title, niche, price, currency, price_credits,
         license_type, status, preview_images, template_image_urls, description, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::jsonb, $13, $14, $14)`,
      [l.id, l.sellerWorkspaceId, l.characterId, l.title, l.niche, l.price, l.currency, l.priceCredits, l.licenseType, l.status,
        JSON.stringify(l.previewImages), JSON.stringify(l.templateImageUrls), l.description, l.createdAt],
    );
    await tx.query('INSERT INTO marketplace_templates (listing_id, template) VALUES ($1, $2::jsonb)', [l.id, JSON.stringify(template)]);
  }

  /** Any listing by id, whoever sells it; visibility is the caller's decision. */
  async find(m: Tx, id: string): Promise<Listing | null> {
    const rows: ListingRow[] = await m.query(`SELECT ${LISTING_COLUMNS} FROM marketplace_listings WHERE id = $1`, [id]);
    return rows[0] ? toListing(rows[0]) : null;
  }

  /** One listing in its wire shape, as a prepared statement (the detail page is hot). */
  async findJson(id: string): Promise<ListingJson | null> {
    const rows = await this.prepared.rows<{ listing: ListingJson }>('mkt_listing_json', `SELECT ${LISTING_JSON} AS listing FROM marketplace_listings WHERE id = $1`, [id]);
    return rows[0]?.listing ?? null;
  }

  /** Locks the listing until `tx` ends and answers it with its template: purchases and updates queue here. */
  async lock(tx: Tx, id: string): Promise<{ listing: Listing; template: CharacterTemplate } | null> {
    const rows: Array<ListingRow & { template: CharacterTemplate }> = await tx.query(
      `SELECT ${LISTING_COLUMNS.split(',').map((c) => `l.${c.trim()}`).join(', ')}, t.template
       FROM marketplace_listings l JOIN marketplace_templates t ON t.listing_id = l.id WHERE l.id = $1 FOR UPDATE OF l`,
      [id],
    );
    return rows[0] ? { listing: toListing(rows[0]), template: rows[0].template } : null;
  }

  /** Whether the character already has a live (draft, active or paused) listing. */
  async hasLiveListing(m: Tx, characterId: string): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `SELECT 1 FROM marketplace_listings WHERE character_id = $1 AND status IN ('draft', 'active', 'paused') LIMIT 1`,
      [characterId],
    );
    return rows.length > 0;
  }

  async update(tx: Tx, sellerWorkspaceId: string, id: string, changes: ListingChanges, at: Date): Promise<void> {
    const sets: string[] = [];
    const values: unknown[] = [id, sellerWorkspaceId, at];
    for (const [key, column, json] of CHANGE_COLUMNS) {
      if (changes[key] === undefined) continue;
      values.push(json ? JSON.stringify(changes[key]) : changes[key]);
      sets.push(`${column} = $${values.length}${json ? '::jsonb' : ''}`);
    }
    await tx.query(`UPDATE marketplace_listings SET ${[...sets, 'updated_at = $3'].join(', ')} WHERE id = $1 AND seller_workspace_id = $2`, values);
    if (changes.template) {
      await tx.query('UPDATE marketplace_templates SET template = $2::jsonb WHERE listing_id = $1', [id, JSON.stringify(changes.template)]);
    }
  }

  /** Counts a sale and what it paid the seller; an exclusive listing closes. */
  async recordSale(tx: Tx, id: string, sellerCredits: number, status: ListingStatus, at: Date): Promise<void> {
    await tx.query(
      `UPDATE marketplace_listings SET sales_count = sales_count + 1, credits_earned = credits_earned + $2, status = $3, updated_at = $4
       WHERE id = $1`,
      [id, sellerCredits, status, at],
    );
  }

  async addRating(tx: Tx, id: string, rating: number): Promise<void> {
    await tx.query(`UPDATE marketplace_listings SET rating_sum = rating_sum + $2, rating_count = rating_count + 1 WHERE id = $1`, [id, rating]);
  }

  /** A page of active listings, already in their wire shape (see `LISTING_JSON`). */
  async browse(s: ListingSearch, req: PageRequest): Promise<Page<ListingJson>> {
    const page = browsePage(s);
    const [row] = await this.prepared.rows<{ listings: ListingJson[]; total: string | null }>(page.name, page.text, page.values);
    let total = Number(row?.total ?? 0);
    if (row?.total == null && s.offset > 0) {
      const count = browseTotal(s);
      total = Number((await this.prepared.rows<{ total: string }>(count.name, count.text, count.values))[0]?.total ?? 0);
    }
    return { items: row?.listings ?? [], page: req.page, pageSize: req.pageSize, total };
  }

  /** The seller's listings (removed ones left out), newest first; sales and earnings count every listing ever sold. */
  async listBySeller(m: Tx, sellerWorkspaceId: string, req: PageRequest): Promise<SellerPage> {
    const rows: ListingRow[] = await m.query(
      `SELECT ${LISTING_COLUMNS} FROM marketplace_listings WHERE seller_workspace_id = $1 AND status <> 'removed'
       ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [sellerWorkspaceId, req.pageSize, offsetOf(req)],
    );
    const sums: Array<{ total: number; sales: string; earned: string }> = await m.query(
      `SELECT (count(*) FILTER (WHERE status <> 'removed'))::int AS total,
         coalesce(sum(sales_count), 0) AS sales, coalesce(sum(credits_earned), 0) AS earned
       FROM marketplace_listings WHERE seller_workspace_id = $1`,
      [sellerWorkspaceId],
    );
    const s = sums[0];
    return { items: rows.map(toListing), page: req.page, pageSize: req.pageSize, total: s.total, salesCount: Number(s.sales), creditsEarned: Number(s.earned) };
  }
}
