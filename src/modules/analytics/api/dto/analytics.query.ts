import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { AppError, canonicalPlatform, isId, PLATFORM_NAMES, type Platform, type PlatformName } from '../../../../core/index.js';
import { PageQueryDto } from '../../../../platform/http/index.js';
import { POST_SORTS, type PostSortKey } from '../../infrastructure/analytics-reads.repository.js';

const SORT_VALUES = POST_SORTS.flatMap((s) => [s, `-${s}`]);

/** Dates are checked (format, order, span) by the range rule, so every range error reads alike. */
export class OverviewQuery {
  @ApiPropertyOptional({ example: 'char_01HV3K5Y8M2N4P6Q8R0S2T4V6W', description: 'Only this character (its posts, and the accounts they went to).' })
  @IsOptional() @IsString() @MaxLength(64)
  character_id?: string;

  @ApiPropertyOptional({ format: 'date', example: '2025-01-01', description: 'First day (UTC), default 29 days before `to`.' })
  @IsOptional() @IsString() @MaxLength(10)
  from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2025-01-30', description: 'Last day (UTC), not before `from`, at most 366 days after; default today.' })
  @IsOptional() @IsString() @MaxLength(10)
  to?: string;
}

export class PostsQuery extends PageQueryDto {
  @ApiPropertyOptional({ example: 'char_01HV3K5Y8M2N4P6Q8R0S2T4V6W' })
  @IsOptional() @IsString() @MaxLength(64)
  character_id?: string;

  @ApiPropertyOptional({ enum: PLATFORM_NAMES })
  @IsOptional() @IsIn(PLATFORM_NAMES, { message: `platform must be one of: ${PLATFORM_NAMES.join(', ')}` })
  platform?: PlatformName;

  @ApiPropertyOptional({ format: 'date', example: '2025-01-01' })
  @IsOptional() @IsString() @MaxLength(10)
  from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2025-01-30' })
  @IsOptional() @IsString() @MaxLength(10)
  to?: string;

  @ApiPropertyOptional({ enum: SORT_VALUES, default: '-published_at', description: "A '-' prefix sorts descending; missing metrics sort last." })
  @IsOptional() @IsIn(SORT_VALUES, { message: `sort must be one of: ${SORT_VALUES.join(', ')}` })
  sort?: string;
}

/** A character id of the wrong shape names no character of the workspace: 404 like a foreign one. */
export function characterOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isId('char', value)) throw AppError.notFound('Character');
  return value;
}

export function platformOf(value: PlatformName | undefined): Platform | undefined {
  return value === undefined ? undefined : canonicalPlatform(value);
}

export function sortOf(value: string | undefined): { key: PostSortKey; desc: boolean } {
  const raw = value ?? '-published_at';
  const desc = raw.startsWith('-');
  return { key: (desc ? raw.slice(1) : raw) as PostSortKey, desc };
}
