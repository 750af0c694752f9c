import { ApiProperty } from '@nestjs/swagger';
import type { MediaUrls } from '../../../../platform/storage/index.js';
import { CharacterBody, toCharacterBody } from '../../../characters/index.js';
import type { PurchaseResult } from '../../application/purchase.service.js';
import { CURRENCIES, LICENSE_TYPES, LISTING_STATUSES, shownPreviews, type Listing } from '../../domain/listing.js';
import type { Purchase, Review } from '../../domain/purchase.js';

/** The wire shape of a listing (contract §9). */
export class ListingBody {
  @ApiProperty({ example: 'mkt_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7', description: "The seller's character the template was frozen from." }) character_id!: string;
  @ApiProperty({ example: 'ws_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) seller_workspace_id!: string;
  @ApiProperty({ example: 'Mia, travel muse' }) title!: string;
  @ApiProperty({ example: 'travel' }) niche!: string;
  @ApiProperty({ example: 9.99 }) price!: number;
  @ApiProperty({ enum: CURRENCIES }) currency!: string;
  @ApiProperty({ example: 100, description: 'What a buyer pays: ceil(price × credits per unit).' }) price_credits!: number;
  @ApiProperty({ enum: LICENSE_TYPES }) license_type!: string;
  @ApiProperty({ enum: LISTING_STATUSES }) status!: string;
  @ApiProperty({ type: [String], description: "The seller's previews, else the template's own images." }) preview_images!: string[];
  @ApiProperty() description!: string;
  @ApiProperty({ type: Number, nullable: true, example: 4.5, description: 'Average of the reviews, two decimals; null before the first.' }) rating!: number | null;
  @ApiProperty({ type: 'integer' }) rating_count!: number;
  @ApiProperty({ type: 'integer' }) sales_count!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class SellerListingBody extends ListingBody {
  @ApiProperty({ type: 'integer', description: "Credits this listing's sales paid the seller." }) credits_earned!: number;
}

export class ListingEnvelope {
  @ApiProperty({ type: ListingBody }) listing!: ListingBody;
}

export class ListingPageBody {
  @ApiProperty({ type: [ListingBody] }) listings!: ListingBody[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

class SalesSummaryBody {
  @ApiProperty({ type: 'integer', description: "Sales of all the seller's listings, removed ones included." }) sales_count!: number;
  @ApiProperty({ type: 'integer' }) credits_earned!: number;
}

export class MyListingsBody {
  @ApiProperty({ type: [SellerListingBody] }) listings!: SellerListingBody[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
  @ApiProperty({ type: SalesSummaryBody }) summary!: SalesSummaryBody;
}

export class PurchaseBody {
  @ApiProperty({ example: 'pur_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty() listing_id!: string;
  @ApiProperty({ description: "The clone made in the buyer's workspace." }) character_id!: string;
  @ApiProperty({ type: 'integer' }) price_credits!: number;
  @ApiProperty({ enum: LICENSE_TYPES }) license_type!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class PurchaseResultBody {
  @ApiProperty({ type: PurchaseBody }) purchase!: PurchaseBody;
  @ApiProperty({ type: CharacterBody }) character!: CharacterBody;
  @ApiProperty({ type: 'integer', description: "The buyer's balance after paying." }) credits_balance!: number;
}

export class LibraryPurchaseBody extends PurchaseBody {
  @ApiProperty({ type: ListingBody, description: 'The listing as it is now.' }) listing!: ListingBody;
}

export class MyPurchasesBody {
  @ApiProperty({ type: [LibraryPurchaseBody] }) purchases!: LibraryPurchaseBody[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class ReviewBody {
  @ApiProperty({ example: 'rev_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty() listing_id!: string;
  @ApiProperty({ minimum: 1, maximum: 5 }) rating!: number;
  @ApiProperty({ type: String, nullable: true }) comment!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class ReviewResultBody {
  @ApiProperty({ type: ReviewBody }) review!: ReviewBody;
  @ApiProperty({ type: ListingBody, description: 'The listing with its new rating.' }) listing!: ListingBody;
}

/**
 * A listing's previews as a client sees them: the template's image copies (the listing's folder) and
 * the seller's own character's uploads signed afresh, other URLs as the seller gave them.
 */
export function withSignedPreviews<T extends { id: string; character_id: string; preview_images: string[] }>(listing: T, urls: MediaUrls): T {
  const owned = [`marketplace/${listing.id}/`, `characters/${listing.character_id}/`];
  return { ...listing, preview_images: listing.preview_images.map((u) => urls.signKept(u, owned)) };
}

export function toListingBody(l: Listing, urls: MediaUrls): ListingBody {
  return withSignedPreviews(toPlainListingBody(l), urls);
}

function toPlainListingBody(l: Listing): ListingBody {
  return {
    id: l.id,
    character_id: l.characterId,
    seller_workspace_id: l.sellerWorkspaceId,
    title: l.title,
    niche: l.niche,
    price: l.price,
    currency: l.currency,
    price_credits: l.priceCredits,
    license_type: l.licenseType,
    status: l.status,
    preview_images: shownPreviews(l),
    description: l.description,
    rating: l.rating,
    rating_count: l.ratingCount,
    sales_count: l.salesCount,
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
  };
}

export function toSellerListingBody(l: Listing, urls: MediaUrls): SellerListingBody {
  return { ...toListingBody(l, urls), credits_earned: l.creditsEarned };
}

export function toPurchaseBody(p: Purchase): PurchaseBody {
  return {
    id: p.id,
    listing_id: p.listingId,
    character_id: p.characterId,
    price_credits: p.priceCredits,
    license_type: p.licenseType,
    created_at: p.createdAt.toISOString(),
  };
}

export function toPurchaseResultBody(r: PurchaseResult, urls: MediaUrls, appZone: string): PurchaseResultBody {
  return { purchase: toPurchaseBody(r.purchase), character: toCharacterBody(r.character, urls, appZone) as unknown as CharacterBody, credits_balance: r.creditsBalance };
}

export function toReviewBody(r: Review): ReviewBody {
  return { id: r.id, listing_id: r.listingId, rating: r.rating, comment: r.comment, created_at: r.createdAt.toISOString() };
}
