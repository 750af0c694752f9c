import { Body, Controller, Delete, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../core/index.js';
import { CurrentCaller, Product, MinRole } from '../../../platform/auth/index.js';
import { ApiErrors, IdParam } from '../../../platform/http/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { Idempotent } from '../../../platform/idempotency/index.js';
import { ListingsService } from '../application/listings.service.js';
import { ListingEnvelope, toListingBody } from './dto/marketplace.body.js';
import { CreateListingDto, toListingEdit, toListingInput, UpdateListingDto } from './dto/listing.dto.js';

/** Preview URLs a seller sent (possibly signed ones it was given), as the listing keeps them. */
function plainPreviews<T extends { previewImages?: string[] }>(input: T, urls: MediaUrls): T {
  return input.previewImages ? { ...input, previewImages: input.previewImages.map((u) => urls.plain(u)) } : input;
}

/** A seller's listings. Session only: API keys are refused by `@Product()`. */
@ApiTags('marketplace')
@Controller('marketplace/listings')
export class ListingsController {
  constructor(
    private readonly listings: ListingsService,
    private readonly urls: MediaUrls,
  ) {}

  @Post()
  @Product()
  @MinRole('admin')
  @Idempotent()
  @ApiOperation({ summary: "List a character of your workspace. Its data is frozen into the listing: later edits reach buyers only after an update." })
  @ApiCreatedResponse({ type: ListingEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'listing_exists', 'rate_limited')
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateListingDto): Promise<ListingEnvelope> {
    return { listing: toListingBody(await this.listings.create(caller, plainPreviews(toListingInput(body), this.urls)), this.urls) };
  }

  @Put(':id')
  @Product()
  @MinRole('admin')
  @ApiOperation({ summary: 'Update a listing (any field but the character) and freeze the character into it again.' })
  @ApiOkResponse({ type: ListingEnvelope })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'invalid_state_transition', 'rate_limited')
  async update(@CurrentCaller() caller: Caller, @Param('id', new IdParam('mkt', 'Listing')) id: string, @Body() body: UpdateListingDto): Promise<ListingEnvelope> {
    return { listing: toListingBody(await this.listings.update(caller, id, plainPreviews(toListingEdit(body), this.urls)), this.urls) };
  }

  @Delete(':id')
  @Product()
  @MinRole('admin')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a listing (status removed). Buyers keep their clones.' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors('unauthorized', 'session_required', 'not_found', 'rate_limited')
  async remove(@CurrentCaller() caller: Caller, @Param('id', new IdParam('mkt', 'Listing')) id: string): Promise<void> {
    await this.listings.remove(caller, id);
  }
}
