import { Injectable } from '@nestjs/common';
import { offsetOf, type Page, type PageRequest } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { LicenseType, Listing } from '../domain/listing.js';
import type { Purchase, Review } from '../domain/purchase.js';
import { LISTING_COLUMNS, toListing, type ListingRow } from './listing-row.js';

interface PurchaseRow {
  id: string;
  listing_id: string;
  buyer_workspace_id: string;
  seller_workspace_id: string;
  character_id: string;
  price_credits: number;
  seller_credits: number;
  license_type: string;
  created_at: Date;
}

const PURCHASE_COLUMNS = 'p.id, p.listing_id, p.buyer_workspace_id, p.seller_workspace_id, p.character_id, p.price_credits, p.seller_credits, p.license_type, p.created_at';
/** The listing's columns, prefixed so they do not clash with the purchase's. */
const JOINED_LISTING = LISTING_COLUMNS.split(',').map((c) => `l.${c.trim()} AS l_${c.trim()}`).join(', ');

function toPurchase(r: PurchaseRow): Purchase {
  return {
    id: r.id,
    listingId: r.listing_id,
    buyerWorkspaceId: r.buyer_workspace_id,
    sellerWorkspaceId: r.seller_workspace_id,
    characterId: r.character_id,
    priceCredits: r.price_credits,
    sellerCredits: r.seller_credits,
    licenseType: r.license_type as LicenseType,
    createdAt: new Date(r.created_at),
  };
}

function joinedListing(r: Record<string, unknown>): Listing {
  const row = Object.fromEntries(Object.entries(r).filter(([k]) => k.startsWith('l_')).map(([k, v]) => [k.slice(2), v]));
  return toListing(row as unknown as ListingRow);
}

/** The advisory-lock class of marketplace purchases ('mkt'), apart from any other lock's keys. */
const PURCHASE_LOCK_CLASS = 0x6d6b74;

/** Purchases and reviews, read and written for the buying workspace. */
@Injectable()
export class PurchasesRepository {
  /**
   * Serialises purchases that touch the same workspaces, taking the locks in id order. A purchase
   * locks the buyer's and then the seller's balance; without this, A buying from B while B buys
   * from A would lock the two rows in opposite orders and deadlock.
   */
  async lockWorkspaces(tx: Tx, workspaceIds: string[]): Promise<void> {
    for (const id of [...new Set(workspaceIds)].sort()) {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [PURCHASE_LOCK_CLASS, id]);
    }
  }

  async insert(tx: Tx, p: Purchase): Promise<void> {
    await tx.query(
      `INSERT INTO marketplace_purchases (id, listing_id, buyer_workspace_id, seller_workspace_id, character_id, price_credits, seller_credits, license_type, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [p.id, p.listingId, p.buyerWorkspaceId, p.sellerWorkspaceId, p.characterId, p.priceCredits, p.sellerCredits, p.licenseType, p.createdAt],
    );
  }

  async hasBought(m: Tx, buyerWorkspaceId: string, listingId: string): Promise<boolean> {
    const rows: unknown[] = await m.query(
      'SELECT 1 FROM marketplace_purchases WHERE buyer_workspace_id = $1 AND listing_id = $2',
      [buyerWorkspaceId, listingId],
    );
    return rows.length > 0;
  }

  /** The buyer's purchases, newest first, each with its listing as it is now. */
  async listByBuyer(m: Tx, buyerWorkspaceId: string, req: PageRequest): Promise<Page<{ purchase: Purchase; listing: Listing }>> {
    const rows: Array<PurchaseRow & Record<string, unknown>> = await m.query(
      `SELECT ${PURCHASE_COLUMNS}, ${JOINED_LISTING}
       FROM marketplace_purchases p JOIN marketplace_listings l ON l.id = p.listing_id
       WHERE p.buyer_workspace_id = $1 ORDER BY p.created_at DESC, p.id DESC LIMIT $2 OFFSET $3`,
      [buyerWorkspaceId, req.pageSize, offsetOf(req)],
    );
    const counted: Array<{ total: number }> = await m.query(
      'SELECT count(*)::int AS total FROM marketplace_purchases WHERE buyer_workspace_id = $1',
      [buyerWorkspaceId],
    );
    const items = rows.map((r) => ({ purchase: toPurchase(r), listing: joinedListing(r) }));
    return { items, page: req.page, pageSize: req.pageSize, total: counted[0].total };
  }

  async insertReview(tx: Tx, r: Review): Promise<void> {
    await tx.query(
      `INSERT INTO marketplace_reviews (id, listing_id, workspace_id, user_id, rating, comment, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [r.id, r.listingId, r.workspaceId, r.userId, r.rating, r.comment, r.createdAt],
    );
  }
}
