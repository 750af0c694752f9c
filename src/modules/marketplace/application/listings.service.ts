import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, isId, newId, type Caller } from '../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../platform/database/index.js';
import { AuditLog, type AuditAction } from '../../audit/index.js';
import { CharactersFacade, type CharacterTemplate } from '../../characters/index.js';
import { isEditable, listingChanges, newListing, type Listing, type ListingEdit, type ListingInput, type TemplateFacts } from '../domain/listing.js';
import { ListingsRepository } from '../infrastructure/listings.repository.js';
import { TemplateFreezer, templateKeys, type FrozenTemplate } from './template-freezer.js';

const LIVE_CHARACTER_INDEX = 'marketplace_listings_live_character_uq';

function listingExists(): AppError {
  return new AppError('listing_exists', 'This character already has a live listing; update that one instead.');
}

/** Who changes a listing: the seller workspace and the user acting for it. */
export type Seller = Pick<Caller, 'workspaceId' | 'userId'>;

/** The wire names of the fields an update sets, for the audit entry (not their values: descriptions can be long). */
function editedFields(edit: ListingEdit): string[] {
  return Object.entries(edit)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
}

function factsOf(t: CharacterTemplate): TemplateFacts {
  return { name: t.name, niche: t.niche, imageUrls: t.referenceImages };
}

/**
 * A seller's listings. The listed character is frozen into the listing (its profile and copies
 * of its image bytes) on create and again on every update, so buyers receive the character as it
 * was when the seller last published it, even if it is edited or deleted afterwards.
 */
@Injectable()
export class ListingsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly listings: ListingsRepository,
    private readonly characters: CharactersFacade,
    private readonly freezer: TemplateFreezer,
    private readonly audit: AuditLog,
  ) {}

  async create(seller: Seller, input: ListingInput): Promise<Listing> {
    const { workspaceId } = seller;
    if (!isId('char', input.characterId)) throw AppError.notFound('Character');
    const id = newId('mkt');
    let frozen: FrozenTemplate | undefined;
    try {
      return await inTransaction(this.ds, async (tx) => {
        const snapshot = await this.characters.snapshot(workspaceId, input.characterId, tx);
        if (await this.listings.hasLiveListing(tx, input.characterId)) throw listingExists();
        frozen = await this.freezer.freeze(id, snapshot);
        const listing = newListing(id, workspaceId, input, factsOf(frozen.template), new Date());
        await this.listings.insert(tx, listing, frozen.template);
        await this.record(tx, seller, 'listing.created', id, { character_id: listing.characterId, status: listing.status, price_credits: listing.priceCredits });
        return listing;
      });
    } catch (err) {
      await this.freezer.discard(frozen?.keys ?? []);
      // Two creates for one character at once: the partial unique index lets one through.
      if (isUniqueViolation(err, LIVE_CHARACTER_INDEX)) throw listingExists();
      throw err;
    }
  }

  /**
   * Applies a seller's update and freezes the character again. A listing whose character was
   * deleted keeps its last template. Sold listings cannot change (409); removed ones are gone (404).
   */
  async update(seller: Seller, id: string, edit: ListingEdit): Promise<Listing> {
    const { workspaceId } = seller;
    let frozen: FrozenTemplate | null = null;
    try {
      const { listing, replacedKeys } = await inTransaction(this.ds, async (tx) => {
        const { listing: current, template } = await this.lockOwn(tx, workspaceId, id);
        if (!isEditable(current.status)) throw AppError.invalidTransition(current.status, 'update');
        frozen = await this.refreeze(tx, current);
        const changes = listingChanges(current, edit, frozen ? factsOf(frozen.template) : null);
        const now = new Date();
        await this.listings.update(tx, workspaceId, id, { ...changes, template: frozen?.template }, now);
        await this.record(tx, seller, 'listing.updated', id, { fields: editedFields(edit) });
        return { listing: { ...current, ...changes, updatedAt: now }, replacedKeys: frozen ? templateKeys(template) : [] };
      });
      // Only after commit: until then a purchase may still be copying the old template's bytes.
      await this.freezer.discard(replacedKeys);
      return listing;
    } catch (err) {
      await this.freezer.discard((frozen as FrozenTemplate | null)?.keys ?? []);
      throw err;
    }
  }

  /** Takes the listing off the marketplace (status `removed`); buyers keep their clones. */
  async remove(seller: Seller, id: string): Promise<void> {
    await inTransaction(this.ds, async (tx) => {
      await this.lockOwn(tx, seller.workspaceId, id);
      await this.listings.update(tx, seller.workspaceId, id, { status: 'removed' }, new Date());
      await this.record(tx, seller, 'listing.deleted', id, {});
    });
  }

  private record(tx: Tx, seller: Seller, action: AuditAction, listingId: string, details: Record<string, unknown>): Promise<void> {
    return this.audit.record(tx, { workspaceId: seller.workspaceId, actorUserId: seller.userId, action, targetType: 'listing', targetId: listingId, details });
  }

  /** The seller's own listing, locked; another workspace's, a missing or a removed one is 404. */
  private async lockOwn(tx: Tx, workspaceId: string, id: string): Promise<{ listing: Listing; template: CharacterTemplate }> {
    const locked = await this.listings.lock(tx, id);
    if (!locked || locked.listing.sellerWorkspaceId !== workspaceId || locked.listing.status === 'removed') {
      throw AppError.notFound('Listing');
    }
    return locked;
  }

  /** A new frozen template from the character as it is now, or null when the character is gone. */
  private async refreeze(tx: Tx, listing: Listing): Promise<FrozenTemplate | null> {
    const character = await this.characters.find(listing.sellerWorkspaceId, listing.characterId, tx);
    if (!character) return null;
    const snapshot = await this.characters.snapshot(listing.sellerWorkspaceId, listing.characterId, tx);
    return this.freezer.freeze(listing.id, snapshot);
  }
}
