import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pageRequest, type Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, PageQueryDto } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { MarketplaceQueryService } from '../application/marketplace-query.service.js';
import { MyListingsBody, MyPurchasesBody, toListingBody, toPurchaseBody, toSellerListingBody } from './dto/marketplace.body.js';

/** The caller's side of the marketplace. Registered before `/marketplace/:id`, whose id pipe would 404 these paths. */
@ApiTags('marketplace')
@Controller('marketplace')
export class MarketplaceLibraryController {
  constructor(
    private readonly query: MarketplaceQueryService,
    private readonly urls: MediaUrls,
  ) {}

  @Get('my-listings')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listMyListings', summary: "The seller dashboard: the workspace's listings (not removed ones), newest first, with sales and credits earned." })
  @ApiOkResponse({ type: MyListingsBody })
  @ApiErrors('unauthorized', 'session_required', 'rate_limited')
  async myListings(@CurrentCaller() caller: Caller, @Query() q: PageQueryDto): Promise<MyListingsBody> {
    const page = await this.query.mine(caller.workspaceId, pageRequest(q.page, q.page_size));
    return {
      listings: page.items.map((l) => toSellerListingBody(l, this.urls)),
      page: page.page,
      page_size: page.pageSize,
      total: page.total,
      summary: { sales_count: page.salesCount, credits_earned: page.creditsEarned },
    };
  }

  @Get('my-purchases')
  @Product()
  @MinRole('viewer')
  @ApiOperation({ operationId: 'listMyPurchases', summary: "The buyer's library: the workspace's purchases, newest first, each with its listing." })
  @ApiOkResponse({ type: MyPurchasesBody })
  @ApiErrors('unauthorized', 'session_required', 'rate_limited')
  async myPurchases(@CurrentCaller() caller: Caller, @Query() q: PageQueryDto): Promise<MyPurchasesBody> {
    const page = await this.query.library(caller.workspaceId, pageRequest(q.page, q.page_size));
    return {
      purchases: page.items.map(({ purchase, listing }) => ({ ...toPurchaseBody(purchase), listing: toListingBody(listing, this.urls) })),
      page: page.page,
      page_size: page.pageSize,
      total: page.total,
    };
  }
}
