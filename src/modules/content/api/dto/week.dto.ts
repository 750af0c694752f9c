import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength, Validate } from 'class-validator';
import { Trim } from '../../../../platform/http/index.js';
import type { GenerateWeekRequest } from '../../application/content-generation.service.js';
import { PLATFORM_NAMES } from '../../domain/platforms.js';
import { IsCalendarDate, LANGUAGE_SHAPE, Present, TrimEach } from './validators.js';

/** The week plan's fields; the character comes from the body or, on the mirror, from the path. */
export class WeekPlanFieldsDto {
  @ApiPropertyOptional({ example: '2024-07-15', description: 'First day of the plan (YYYY-MM-DD); default today in the character’s time zone.' })
  @Present() @IsString() @Validate(IsCalendarDate)
  week?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 4, default: 1 })
  @Present() @IsInt() @Min(1) @Max(4)
  posts_per_day?: number;

  @ApiPropertyOptional({ type: [String], enum: PLATFORM_NAMES, default: ['instagram'], description: 'Assigned to the posts round-robin.' })
  @Present() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(PLATFORM_NAMES.length) @IsIn(PLATFORM_NAMES, { each: true })
  platforms?: string[];

  @ApiPropertyOptional({ type: [String], maxItems: 20, example: ['summer fitness'] })
  @Present() @TrimEach() @IsArray() @ArrayMaxSize(20) @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(100, { each: true })
  trending_topics?: string[];

  @ApiPropertyOptional({ maxLength: 1000 })
  @Present() @Trim() @IsString() @MaxLength(1000)
  guidance?: string;

  @ApiPropertyOptional({ example: 'en', default: 'en', description: 'Language of the captions (BCP 47 tag).' })
  @Present() @IsString() @MaxLength(35) @Matches(LANGUAGE_SHAPE, { message: 'target_language must be a language tag such as en or pt-BR' })
  target_language?: string;
}

export class GenerateWeekDto extends WeekPlanFieldsDto {
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' })
  @IsString() @MaxLength(64)
  character_id!: string;
}

export function toGenerateWeekRequest(characterId: string, dto: WeekPlanFieldsDto): GenerateWeekRequest {
  return {
    characterId,
    week: dto.week,
    postsPerDay: dto.posts_per_day ?? 1,
    platforms: dto.platforms ?? ['instagram'],
    trendingTopics: dto.trending_topics ?? [],
    guidance: dto.guidance || undefined,
    language: dto.target_language ?? 'en',
  };
}
