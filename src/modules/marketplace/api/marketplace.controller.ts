import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppConfig } from '../../../config/index.js';
import { pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { Idempotent } from '../../../platform/idempotency/index.js';
import { MarketplaceQueryService } from '../application/marketplace-query.service.js';
import { PurchaseService } from '../application/purchase.service.js';
import { ReviewsService } from '../application/reviews.service.js';
import { BrowseQueryDto, toBrowseRequest } from './dto/browse.query.js';
import {
  ListingEnvelope, ListingPageBody, PurchaseResultBody, ReviewResultBody, toListingBody, toPurchaseResultBody, toReviewBody, withSignedPreviews,
} from './dto/marketplace.body.js';
import { CreateReviewDto } from './dto/review.dto.js';

/** The catalogue: browse, one listing, buy, review. Session only. */
@ApiTags('marketplace')
@Controller('marketplace')
export class MarketplaceController {
  constructor(
    private readonly query: MarketplaceQueryService,
    private readonly purchases: PurchaseService,
    private readonly reviews: ReviewsService,
    private readonly urls: MediaUrls,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @Product()
  @MinRole('viewer')
  @ApiOperation({ summary: 'Active listings, filtered and sorted; page_size default 20, at most 100.' })
  @ApiOkResponse({ type: ListingPageBody })
  @ApiErrors('unauthorized', 'session_required', 'rate_limited')
  async browse(@Query() q: BrowseQueryDto): Promise<ListingPageBody> {
    const page = await this.query.browse(toBrowseRequest(q), pageRequest(q.page, q.page_size));
    return { listings: page.items.map((l) => withSignedPreviews(l, this.urls)), page: page.page, page_size: page.pageSize, total: page.total };
  }

  @Get(':id')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'getMarketplaceListing', summary: 'One listing: any active one, or one of your own that is not removed.' })
  @ApiOkResponse({ type: ListingEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'rate_limited')
  async get(@CurrentCaller() caller: Caller, @Param('id', new IdParam('mkt', 'Listing')) id: string): Promise<ListingEnvelope> {
    return { listing: withSignedPreviews(await this.query.get(caller.workspaceId, id), this.urls) };
  }

  @Post(':id/purchase')
  @Product({ verifiedEmail: true })
  @MinRole('admin')
  @Idempotent()
  @ApiOperation({ operationId: 'purchaseListing',
    summary: 'Buy a listing: pay price_credits, get a clone of its template. Checks in order: 404, own listing, not active, already bought, character limit, credits.',
  })
  @ApiCreatedResponse({ type: PurchaseResultBody })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'cannot_purchase_own_listing', 'listing_unavailable', 'already_purchased', 'character_limit_reached', 'insufficient_credits', 'rate_limited')
  async purchase(@CurrentCaller() caller: Caller, @Param('id', new IdParam('mkt', 'Listing')) id: string): Promise<PurchaseResultBody> {
    return toPurchaseResultBody(await this.purchases.purchase(caller, id), this.urls, this.config.publishing.defaultTimezone);
  }

  @Post(':id/reviews')
  @Product()
  @MinRole('admin')
  @Idempotent()
  @ApiOperation({ operationId: 'reviewListing', summary: 'Review a listing you bought, once per workspace; the rating joins its average.' })
  @ApiCreatedResponse({ type: ReviewResultBody })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'forbidden', 'invalid_state_transition', 'rate_limited')
  async review(@CurrentCaller() caller: Caller, @Param('id', new IdParam('mkt', 'Listing')) id: string, @Body() body: CreateReviewDto): Promise<ReviewResultBody> {
    const { review, listing } = await this.reviews.review(caller, id, { rating: body.rating, comment: body.comment || null });
    return { review: toReviewBody(review), listing: toListingBody(listing, this.urls) };
  }
}
