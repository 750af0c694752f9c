import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { PLATFORM_NAMES, type PlatformName } from '../../../../core/index.js';
import { Present, Trim } from '../../../../platform/http/index.js';
import { MAX_DESTINATION_LENGTH, SHORTCODE_MAX, SHORTCODE_MIN, SHORTCODE_PATTERN } from '../../domain/affiliate-link.js';

/** Absent or null: no platform. */
const NullablePresent = () => ValidateIf((_o: object, v: unknown) => v !== undefined && v !== null);

const PLATFORM_DOC = { enum: PLATFORM_NAMES, nullable: true, description: 'Where the link is posted (a platform name or its neutral alias), or null.' } as const;
const DESTINATION_DOC = {
  maxLength: MAX_DESTINATION_LENGTH,
  example: 'https://shop.example.com/item/42?ref=studio',
  description: 'An absolute http or https URL without credentials; never javascript:, data: or this service’s own host.',
} as const;
const SHORTCODE_DOC = {
  minLength: SHORTCODE_MIN,
  maxLength: SHORTCODE_MAX,
  pattern: SHORTCODE_PATTERN.source,
  example: 'spring-sale',
  description: 'Unique across the service (409 shortcode_taken otherwise); case-sensitive.',
} as const;
const SHORTCODE_MESSAGE = { message: `shortcode must be ${SHORTCODE_MIN}-${SHORTCODE_MAX} letters, digits, _ or -` };
const PLATFORM_MESSAGE = { message: `platform must be one of: ${PLATFORM_NAMES.join(', ')}, or null` };

export class CreateLinkDto {
  @ApiPropertyOptional(PLATFORM_DOC)
  @NullablePresent() @IsIn(PLATFORM_NAMES, PLATFORM_MESSAGE)
  platform?: PlatformName | null;

  @ApiProperty(DESTINATION_DOC)
  @Trim() @IsString() @MaxLength(MAX_DESTINATION_LENGTH)
  destination_url!: string;

  @ApiPropertyOptional({ ...SHORTCODE_DOC, description: `${SHORTCODE_DOC.description} Generated (8 random letters and digits) when absent.` })
  @Present() @Trim() @IsString() @Matches(SHORTCODE_PATTERN, SHORTCODE_MESSAGE)
  shortcode?: string;
}

export class UpdateLinkDto {
  @ApiPropertyOptional(PLATFORM_DOC)
  @NullablePresent() @IsIn(PLATFORM_NAMES, PLATFORM_MESSAGE)
  platform?: PlatformName | null;

  @ApiPropertyOptional(DESTINATION_DOC)
  @Present() @Trim() @IsString() @MaxLength(MAX_DESTINATION_LENGTH)
  destination_url?: string;

  @ApiPropertyOptional({ ...SHORTCODE_DOC, description: `${SHORTCODE_DOC.description} The old shortcode stops working (other API instances follow within MONETIZATION_LINK_CACHE_MS).` })
  @Present() @Trim() @IsString() @Matches(SHORTCODE_PATTERN, SHORTCODE_MESSAGE)
  shortcode?: string;
}

export class ClicksQuery {
  @ApiPropertyOptional({ format: 'date', example: '2025-01-01', description: 'First UTC day; default 29 days before `to`.' })
  @IsOptional() @IsString() @MaxLength(10)
  from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2025-01-30', description: 'Last UTC day (included), not before `from`, at most 366 days in all; default today.' })
  @IsOptional() @IsString() @MaxLength(10)
  to?: string;
}
