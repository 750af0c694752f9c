import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId, type Caller } from '../../../core/index.js';
import { inTransaction, isUniqueViolation } from '../../../platform/database/index.js';
import { isVisibleTo, type Listing } from '../domain/listing.js';
import type { Review } from '../domain/purchase.js';
import { ListingsRepository } from '../infrastructure/listings.repository.js';
import { PurchasesRepository } from '../infrastructure/purchases.repository.js';

/**
 * Buyers' reviews. A workspace that bought a listing may review it once, whatever the listing's
 * status now; each review moves the listing's average rating in the same transaction.
 */
@Injectable()
export class ReviewsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly listings: ListingsRepository,
    private readonly purchases: PurchasesRepository,
  ) {}

  async review(caller: Caller, listingId: string, input: { rating: number; comment: string | null }): Promise<{ review: Review; listing: Listing }> {
    try {
      return await inTransaction(this.ds, async (tx) => {
        const listing = await this.listings.find(tx, listingId);
        if (!listing) throw AppError.notFound('Listing');
        if (!(await this.purchases.hasBought(tx, caller.workspaceId, listingId))) {
          if (!isVisibleTo(listing, caller.workspaceId)) throw AppError.notFound('Listing');
          throw new AppError('forbidden', 'Only workspaces that bought this listing can review it.');
        }
        const review: Review = { id: newId('rev'), listingId, workspaceId: caller.workspaceId, userId: caller.userId, ...input, createdAt: new Date() };
        await this.purchases.insertReview(tx, review);
        await this.listings.addRating(tx, listingId, input.rating);
        return { review, listing: (await this.listings.find(tx, listingId))! };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'marketplace_reviews_once_uq')) {
        // No dedicated code in the contract: a second review is an action the listing no longer allows.
        throw new AppError('invalid_state_transition', 'This workspace has already reviewed this listing.', { from: 'reviewed', action: 'review' });
      }
      throw err;
    }
  }
}
