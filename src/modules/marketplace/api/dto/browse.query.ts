import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsNumber, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { AppError } from '../../../../core/index.js';
import { PageQueryDto, QueryInt } from '../../../../platform/http/index.js';
import type { BrowseRequest } from '../../application/marketplace-query.service.js';
import { CREDITS_PER_UNIT, PRICE_MAX, SORTS, type ListingSort } from '../../domain/listing.js';

/** The dearest price_credits a listing can have; a bound past it could only overflow the column. */
const PRICE_MAX_CREDITS = PRICE_MAX * Math.max(...Object.values(CREDITS_PER_UNIT));

/** Trims a query string; an empty one is the same as none. */
const OptionalText = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() || undefined : value));

export class BrowseQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ maxLength: 200, example: 'yoga coach', description: 'Full-text search over title, niche and description (web search syntax: "quoted phrases", or, -exclude).' })
  @OptionalText() @IsOptional() @IsString() @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ maxLength: 80, example: 'fitness', description: 'Exact niche, case-insensitive.' })
  @OptionalText() @IsOptional() @IsString() @MaxLength(80)
  niche?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: PRICE_MAX_CREDITS, description: 'Lowest price_credits.' })
  @IsOptional() @QueryInt() @IsInt() @Min(0) @Max(PRICE_MAX_CREDITS)
  min_price?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: PRICE_MAX_CREDITS, description: 'Highest price_credits.' })
  @IsOptional() @QueryInt() @IsInt() @Min(0) @Max(PRICE_MAX_CREDITS)
  max_price?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 5, example: 4, description: 'Lowest average rating; unrated listings never match.' })
  @IsOptional() @Type(() => Number) @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(5)
  rating?: number;

  @ApiPropertyOptional({ enum: SORTS, default: 'newest' })
  @IsOptional() @IsIn(SORTS, { message: `sort must be one of: ${SORTS.join(', ')}` })
  sort?: ListingSort;
}

export function toBrowseRequest(q: BrowseQueryDto): BrowseRequest {
  if (q.min_price !== undefined && q.max_price !== undefined && q.min_price > q.max_price) {
    throw new AppError('validation_failed', 'min_price must not be above max_price.', [{ field: 'min_price', message: 'min_price must not be above max_price' }]);
  }
  return { q: q.q, niche: q.niche, minPrice: q.min_price, maxPrice: q.max_price, minRating: q.rating, sort: q.sort ?? 'newest' };
}
