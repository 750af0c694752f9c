import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId, type Caller } from '../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../platform/database/index.js';
import { AuditLog } from '../../audit/index.js';
import { BillingFacade } from '../../billing/index.js';
import { CharactersFacade, type Character, type CharacterTemplate } from '../../characters/index.js';
import { sellerShare, statusAfterSale, type Listing } from '../domain/listing.js';
import type { Purchase } from '../domain/purchase.js';
import { purchaseRefusal } from '../domain/purchase-rules.js';
import { ListingsRepository } from '../infrastructure/listings.repository.js';
import { PurchasesRepository } from '../infrastructure/purchases.repository.js';

export interface PurchaseResult {
  purchase: Purchase;
  character: Character;
  /** The buyer's balance after paying. */
  creditsBalance: number;
}

/** Ledger reasons of a sale, on both sides, each pointing at the purchase. */
export const PURCHASE_REASON = 'marketplace_purchase';
export const SALE_REASON = 'marketplace_sale';

/**
 * Buys a listing in one transaction: the buyer pays, the seller is paid 80%, the purchase is
 * recorded, the template becomes a character of the buyer's and an exclusive listing closes.
 * Purchases of one listing queue on its row lock, so each sees the one before it: a buyer cannot
 * buy twice, and an exclusive listing cannot sell twice.
 */
@Injectable()
export class PurchaseService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly listings: ListingsRepository,
    private readonly purchases: PurchasesRepository,
    private readonly billing: BillingFacade,
    private readonly characters: CharactersFacade,
    private readonly audit: AuditLog,
  ) {}

  async purchase(buyer: Pick<Caller, 'workspaceId' | 'userId'>, listingId: string): Promise<PurchaseResult> {
    const buyerWorkspaceId = buyer.workspaceId;
    try {
      return await inTransaction(this.ds, async (tx) => {
        const locked = await this.listings.lock(tx, listingId);
        if (!locked) throw AppError.notFound('Listing');
        await this.purchases.lockWorkspaces(tx, [buyerWorkspaceId, locked.listing.sellerWorkspaceId]);
        const refusal = purchaseRefusal({
          listing: locked.listing,
          buyerWorkspaceId,
          alreadyPurchased: await this.purchases.hasBought(tx, buyerWorkspaceId, listingId),
          room: await this.characters.characterRoom(tx, buyerWorkspaceId),
          balance: await this.billing.balance(buyerWorkspaceId, tx),
        });
        if (refusal) throw refusal;
        const result = await this.complete(tx, buyerWorkspaceId, locked.listing, locked.template);
        await this.audit.record(tx, {
          workspaceId: buyerWorkspaceId, actorUserId: buyer.userId, action: 'purchase.completed', targetType: 'purchase', targetId: result.purchase.id,
          details: { listing_id: listingId, price: locked.listing.priceCredits },
        });
        return result;
      });
    } catch (err) {
      // A backstop only: the listing lock already orders purchases of one listing.
      if (isUniqueViolation(err, 'marketplace_purchases_once_uq')) {
        throw new AppError('already_purchased', 'This workspace has already bought this listing.');
      }
      throw err;
    }
  }

  /** The checks passed under the locks, so neither the debit nor the clone can be refused now. */
  private async complete(tx: Tx, buyerWorkspaceId: string, listing: Listing, template: CharacterTemplate): Promise<PurchaseResult> {
    const id = newId('pur');
    const ref = { refType: PURCHASE_REASON, refId: id };
    const paid = await this.billing.debit(tx, { workspaceId: buyerWorkspaceId, amount: listing.priceCredits, reason: PURCHASE_REASON, ...ref });
    const share = sellerShare(listing.priceCredits);
    if (share > 0) await this.billing.credit(tx, { workspaceId: listing.sellerWorkspaceId, amount: share, reason: SALE_REASON, ...ref });
    const character = await this.characters.createFromTemplate(tx, buyerWorkspaceId, template);
    const purchase: Purchase = {
      id,
      listingId: listing.id,
      buyerWorkspaceId,
      sellerWorkspaceId: listing.sellerWorkspaceId,
      characterId: character.id,
      priceCredits: listing.priceCredits,
      sellerCredits: share,
      licenseType: listing.licenseType,
      createdAt: new Date(),
    };
    await this.purchases.insert(tx, purchase);
    // Last, because it may take the marketplace counter's row lock: hold it as briefly as possible.
    await this.listings.recordSale(tx, listing.id, share, statusAfterSale(listing), purchase.createdAt);
    return { purchase, character, creditsBalance: paid.balance };
  }
}
