import type { Currency, LicenseType, Listing, ListingStatus } from '../domain/listing.js';

/** The listing columns every read selects; never the template, which only purchases and updates need. */
export const LISTING_COLUMNS = `id, seller_workspace_id, character_id, title, niche, price, currency, price_credits, license_type,
  status, preview_images, template_image_urls, description, rating, rating_count, sales_count, credits_earned, created_at, updated_at`;

export interface ListingRow {
  id: string;
  seller_workspace_id: string;
  character_id: string;
  title: string;
  niche: string;
  /** numeric and bigint columns arrive as strings from the driver */
  price: string | number;
  currency: string;
  price_credits: number;
  license_type: string;
  status: string;
  preview_images: string[];
  template_image_urls: string[];
  description: string;
  rating: string | number | null;
  rating_count: number;
  sales_count: number;
  credits_earned: string | number;
  created_at: Date;
  updated_at: Date;
}

export function toListing(r: ListingRow): Listing {
  return {
    id: r.id,
    sellerWorkspaceId: r.seller_workspace_id,
    characterId: r.character_id,
    title: r.title,
    niche: r.niche,
    price: Number(r.price),
    currency: r.currency as Currency,
    priceCredits: r.price_credits,
    licenseType: r.license_type as LicenseType,
    status: r.status as ListingStatus,
    previewImages: r.preview_images,
    templateImageUrls: r.template_image_urls,
    description: r.description,
    rating: r.rating === null ? null : Number(r.rating),
    ratingCount: r.rating_count,
    salesCount: r.sales_count,
    creditsEarned: Number(r.credits_earned),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}
