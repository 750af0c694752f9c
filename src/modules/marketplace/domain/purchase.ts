import type { LicenseType } from './listing.js';

/** One workspace's purchase of a listing: what it paid, what the seller got, the clone it received. */
export interface Purchase {
  id: string;
  listingId: string;
  buyerWorkspaceId: string;
  sellerWorkspaceId: string;
  /** The clone made in the buyer's workspace. */
  characterId: string;
  priceCredits: number;
  sellerCredits: number;
  licenseType: LicenseType;
  createdAt: Date;
}

/** A buyer's review; one per buying workspace and listing. */
export interface Review {
  id: string;
  listingId: string;
  workspaceId: string;
  userId: string;
  rating: number;
  comment: string | null;
  createdAt: Date;
}
