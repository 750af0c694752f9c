import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, offsetOf, type Page, type PageRequest } from '../../../core/index.js';
import { isVisibleTo, type Listing, type ListingSort, type ListingStatus } from '../domain/listing.js';
import type { ListingJson } from '../infrastructure/listing-json.js';
import type { Purchase } from '../domain/purchase.js';
import { ListingsRepository, type SellerPage } from '../infrastructure/listings.repository.js';
import { PurchasesRepository } from '../infrastructure/purchases.repository.js';

export interface BrowseRequest {
  q?: string;
  niche?: string;
  minPrice?: number;
  maxPrice?: number;
  minRating?: number;
  sort: ListingSort;
}

/**
 * Reads: the public catalogue, one listing, the seller's dashboard and the buyer's library. The
 * catalogue and the detail page come back from the database already in their wire shape.
 */
@Injectable()
export class MarketplaceQueryService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly listings: ListingsRepository,
    private readonly purchases: PurchasesRepository,
  ) {}

  browse(filter: BrowseRequest, page: PageRequest): Promise<Page<ListingJson>> {
    return this.listings.browse({ ...filter, limit: page.pageSize, offset: offsetOf(page) }, page);
  }

  /** Any active listing to anyone signed in; the seller also sees their draft, paused and sold ones. */
  async get(workspaceId: string, id: string): Promise<ListingJson> {
    const listing = await this.listings.findJson(id);
    if (!listing || !isVisibleTo({ status: listing.status as ListingStatus, sellerWorkspaceId: listing.seller_workspace_id }, workspaceId)) {
      throw AppError.notFound('Listing');
    }
    return listing;
  }

  mine(workspaceId: string, page: PageRequest): Promise<SellerPage> {
    return this.listings.listBySeller(this.ds.manager, workspaceId, page);
  }

  library(workspaceId: string, page: PageRequest): Promise<Page<{ purchase: Purchase; listing: Listing }>> {
    return this.purchases.listByBuyer(this.ds.manager, workspaceId, page);
  }
}
