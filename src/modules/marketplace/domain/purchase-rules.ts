import { AppError, characterLimitReached, insufficientCredits, type Plan } from '../../../core/index.js';
import type { Listing } from './listing.js';

/** Everything a purchase decision depends on, read under the purchase's locks. */
export interface PurchaseFacts {
  listing: Pick<Listing, 'id' | 'sellerWorkspaceId' | 'status' | 'priceCredits'> | null;
  buyerWorkspaceId: string;
  alreadyPurchased: boolean;
  /** The buyer's plan limit and how many characters the workspace holds now. */
  room: { plan: Plan; limit: number; count: number };
  balance: number;
}

type Check = (f: PurchaseFacts & { listing: NonNullable<PurchaseFacts['listing']> }) => AppError | null;

/** The checks of contract §9, in the order the contract gives them. */
const CHECKS: ReadonlyArray<Check> = [
  (f) =>
    f.listing.sellerWorkspaceId === f.buyerWorkspaceId
      ? new AppError('cannot_purchase_own_listing', 'You cannot buy your own listing.')
      : null,
  (f) =>
    f.listing.status !== 'active'
      ? new AppError('listing_unavailable', 'This listing is not for sale.', { status: f.listing.status })
      : null,
  (f) => (f.alreadyPurchased ? new AppError('already_purchased', 'This workspace has already bought this listing.') : null),
  (f) =>
    f.room.count >= f.room.limit
      ? characterLimitReached(f.room.plan, f.room.limit, f.room.count)
      : null,
  (f) =>
    f.balance < f.listing.priceCredits
      ? insufficientCredits(f.listing.priceCredits, f.balance)
      : null,
];

/**
 * Why this purchase must be refused, or null when it may go ahead. Order: missing listing 404,
 * own listing 409, not active 409, already bought 409, character limit 403, credits 402.
 */
export function purchaseRefusal(facts: PurchaseFacts): AppError | null {
  const listing = facts.listing;
  if (!listing) return AppError.notFound('Listing');
  for (const check of CHECKS) {
    const refusal = check({ ...facts, listing });
    if (refusal) return refusal;
  }
  return null;
}
