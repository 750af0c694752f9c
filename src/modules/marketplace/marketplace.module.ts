import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../../platform/idempotency/index.js';
import { BillingModule } from '../billing/index.js';
import { CharactersModule } from '../characters/index.js';
import { ListingsController } from './api/listings.controller.js';
import { MarketplaceLibraryController } from './api/marketplace-library.controller.js';
import { MarketplaceController } from './api/marketplace.controller.js';
import { ListingsService } from './application/listings.service.js';
import { MarketplaceQueryService } from './application/marketplace-query.service.js';
import { PurchaseService } from './application/purchase.service.js';
import { ReviewsService } from './application/reviews.service.js';
import { TemplateFreezer } from './application/template-freezer.js';
import { ListingsRepository } from './infrastructure/listings.repository.js';
import { PurchasesRepository } from './infrastructure/purchases.repository.js';
import { MarketplaceDataContributor } from './infrastructure/marketplace-data.contributor.js';

/**
 * Marketplace: character templates listed by one workspace and bought with credits by others.
 * The library controller comes first: its static paths must be registered before `:id`.
 */
@Module({
  imports: [IdempotencyModule, BillingModule, CharactersModule],
  controllers: [MarketplaceLibraryController, ListingsController, MarketplaceController],
  providers: [MarketplaceDataContributor, ListingsRepository, PurchasesRepository, TemplateFreezer, ListingsService, MarketplaceQueryService, PurchaseService, ReviewsService],
})
export class MarketplaceModule {}
