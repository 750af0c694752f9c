/** Marketplace listings (contract §9): values, prices and status rules. Pure, no framework. */

export const CURRENCIES = ['credits', 'USD', 'EUR', 'GBP'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Credits per unit of each currency. */
export const CREDITS_PER_UNIT: Readonly<Record<Currency, number>> = { credits: 1, USD: 10, EUR: 11, GBP: 13 };

export const LICENSE_TYPES = ['personal', 'commercial', 'exclusive'] as const;
export type LicenseType = (typeof LICENSE_TYPES)[number];

/** What a seller may set; `sold` and `removed` are set by the system only. */
export const SELLER_STATUSES = ['draft', 'active', 'paused'] as const;
export type SellerStatus = (typeof SELLER_STATUSES)[number];
export const LISTING_STATUSES = [...SELLER_STATUSES, 'sold', 'removed'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

export const SORTS = ['newest', 'price_asc', 'price_desc', 'rating', 'popular'] as const;
export type ListingSort = (typeof SORTS)[number];

export const PRICE_MAX = 1_000_000;
export const DESCRIPTION_MAX = 5000;
export const TITLE_MAX = 120;
export const PREVIEW_IMAGES_MAX = 10;
export const REVIEW_COMMENT_MAX = 2000;
/** Percent of the price the seller receives; the marketplace keeps the rest. */
export const SELLER_SHARE_PERCENT = 80;

export interface Listing {
  id: string;
  sellerWorkspaceId: string;
  characterId: string;
  title: string;
  niche: string;
  price: number;
  currency: Currency;
  priceCredits: number;
  licenseType: LicenseType;
  status: ListingStatus;
  /** What the seller gave; may be empty. */
  previewImages: string[];
  /** The first image URLs of the frozen template, shown when the seller gave no previews. */
  templateImageUrls: string[];
  description: string;
  rating: number | null;
  ratingCount: number;
  salesCount: number;
  creditsEarned: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * `ceil(price × rate)`, computed on whole cents so no float rounding can tip it over: a price
 * has at most two decimals, so `price × 100` is an integer.
 */
export function priceCredits(price: number, currency: Currency): number {
  const cents = Math.round(price * 100);
  return Math.floor((cents * CREDITS_PER_UNIT[currency] + 99) / 100);
}

/**
 * The seller's 80%, rounded down: the marketplace never pays out more than it took, and a sale
 * of 1 credit pays the seller nothing (no ledger entry is written for 0).
 */
export function sellerShare(priceInCredits: number): number {
  return Math.floor((priceInCredits * SELLER_SHARE_PERCENT) / 100);
}

/** A live listing holds the character's one listing slot. */
export function isLive(status: ListingStatus): boolean {
  return (SELLER_STATUSES as readonly string[]).includes(status);
}

/** Sellers may edit a listing until the system has closed it (sold or removed). */
export function isEditable(status: ListingStatus): boolean {
  return isLive(status);
}

/** The status after one more sale: an exclusive licence sells once. */
export function statusAfterSale(listing: Pick<Listing, 'status' | 'licenseType'>): ListingStatus {
  return listing.licenseType === 'exclusive' ? 'sold' : listing.status;
}

/** Who may see a listing: anyone while it is active, its seller until it is removed. */
export function isVisibleTo(listing: Pick<Listing, 'status' | 'sellerWorkspaceId'>, workspaceId: string): boolean {
  if (listing.status === 'active') return true;
  return listing.sellerWorkspaceId === workspaceId && listing.status !== 'removed';
}

/** The previews a buyer sees: the seller's, else the template's own images. */
export function shownPreviews(listing: Pick<Listing, 'previewImages' | 'templateImageUrls'>): string[] {
  return listing.previewImages.length > 0 ? listing.previewImages : listing.templateImageUrls;
}

/** An http(s) URL of at most 2048 characters. */
export function isPreviewUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** What a seller sends to list a character. */
export interface ListingInput {
  characterId: string;
  title?: string;
  price: number;
  currency: Currency;
  licenseType: LicenseType;
  status: SellerStatus;
  previewImages: string[];
  description: string;
}

/** A seller's update: any listing field but the character. */
export type ListingEdit = Partial<Omit<ListingInput, 'characterId'>>;

/** What a listing takes from its frozen template. */
export interface TemplateFacts {
  name: string;
  niche: string;
  imageUrls: string[];
}

export function newListing(id: string, sellerWorkspaceId: string, input: ListingInput, template: TemplateFacts, now: Date): Listing {
  return {
    id,
    sellerWorkspaceId,
    characterId: input.characterId,
    title: input.title ?? template.name.slice(0, TITLE_MAX),
    niche: template.niche,
    price: input.price,
    currency: input.currency,
    priceCredits: priceCredits(input.price, input.currency),
    licenseType: input.licenseType,
    status: input.status,
    previewImages: input.previewImages,
    templateImageUrls: template.imageUrls.slice(0, PREVIEW_IMAGES_MAX),
    description: input.description,
    rating: null,
    ratingCount: 0,
    salesCount: 0,
    creditsEarned: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** The changes an edit makes; a new price or currency recomputes `price_credits`, a new template the niche and images. */
export function listingChanges(current: Listing, edit: ListingEdit, template: TemplateFacts | null): Partial<Listing> {
  const changes: Partial<Listing> = {};
  for (const key of ['title', 'price', 'currency', 'licenseType', 'status', 'previewImages', 'description'] as const) {
    if (edit[key] !== undefined) Object.assign(changes, { [key]: edit[key] });
  }
  if (edit.price !== undefined || edit.currency !== undefined) {
    changes.priceCredits = priceCredits(edit.price ?? current.price, edit.currency ?? current.currency);
  }
  if (template) {
    changes.niche = template.niche;
    changes.templateImageUrls = template.imageUrls.slice(0, PREVIEW_IMAGES_MAX);
  }
  return changes;
}
