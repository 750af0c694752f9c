import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength, Validate } from 'class-validator';
import { Trim } from '../../../../platform/http/index.js';
import type { ContentEdit } from '../../application/content-editing.service.js';
import { CONTENT_TYPES, LIMITS, type ContentType } from '../../domain/content-item.js';
import { PLATFORM_NAMES } from '../../domain/platforms.js';
import { IsTimestamp, Present, TrimEach } from './validators.js';

export class UpdateContentDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: LIMITS.caption })
  @IsOptional() @Trim() @IsString() @MaxLength(LIMITS.caption)
  caption?: string | null;

  @ApiPropertyOptional({ type: [String], maxItems: LIMITS.hashtags })
  @Present() @TrimEach() @IsArray() @ArrayMaxSize(LIMITS.hashtags) @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(LIMITS.hashtag, { each: true })
  hashtags?: string[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: LIMITS.cta })
  @IsOptional() @Trim() @IsString() @MaxLength(LIMITS.cta)
  cta?: string | null;

  @ApiPropertyOptional({ minLength: 1, maxLength: LIMITS.prompt })
  @Present() @Trim() @IsString() @MinLength(1) @MaxLength(LIMITS.prompt)
  image_prompt?: string;

  @ApiPropertyOptional({ enum: PLATFORM_NAMES })
  @Present() @IsIn(PLATFORM_NAMES)
  platform?: string;

  @ApiPropertyOptional({ enum: CONTENT_TYPES })
  @Present() @IsIn(CONTENT_TYPES)
  content_type?: ContentType;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: 'null takes the item off the calendar.' })
  @IsOptional() @IsString() @Validate(IsTimestamp)
  planned_for?: string | null;
}

export function toContentEdit(dto: UpdateContentDto): ContentEdit {
  return {
    caption: dto.caption,
    hashtags: dto.hashtags,
    cta: dto.cta,
    imagePrompt: dto.image_prompt,
    platform: dto.platform,
    contentType: dto.content_type,
    plannedFor: dto.planned_for === undefined ? undefined : dto.planned_for === null ? null : new Date(dto.planned_for),
  };
}

export class CreateVariantsDto {
  @ApiProperty({ minimum: 2, maximum: 3, example: 3, description: 'Styles in order: story-led, question-led, cta-led.' })
  @IsInt() @Min(2) @Max(3)
  count!: number;
}
