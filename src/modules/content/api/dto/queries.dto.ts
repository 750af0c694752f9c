import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength, Validate } from 'class-validator';
import { AppError } from '../../../../core/index.js';
import { PageQueryDto } from '../../../../platform/http/index.js';
import { CONTENT_TYPES, type ContentStatus } from '../../domain/content-item.js';
import { PLATFORM_NAMES } from '../../domain/platforms.js';
import type { ContentFilter, QueueFilter } from '../../infrastructure/content-item.repository.js';
import { IsCalendarDate, IsStatusList } from './validators.js';

export const DEFAULT_QUEUE_STATUSES: readonly ContentStatus[] = ['queued', 'generating', 'ready'];

/** Queue filters; on the character mirror the character comes from the path. */
export class CharacterQueueQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ example: 'ready,approved', description: 'Comma-separated statuses; default queued,generating,ready.' })
  @IsOptional() @IsString() @Validate(IsStatusList)
  status?: string;

  @ApiPropertyOptional({ enum: PLATFORM_NAMES })
  @IsOptional() @IsIn(PLATFORM_NAMES)
  platform?: string;

  @ApiPropertyOptional({ enum: CONTENT_TYPES })
  @IsOptional() @IsIn(CONTENT_TYPES)
  content_type?: string;
}

export class QueueQueryDto extends CharacterQueueQueryDto {
  @ApiPropertyOptional({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' })
  @IsOptional() @IsString() @MaxLength(64)
  character_id?: string;
}

export function toQueueFilter(characterId: string | undefined, q: CharacterQueueQueryDto): QueueFilter {
  const statuses = q.status ? [...new Set(q.status.split(',').map((s) => s.trim() as ContentStatus))] : DEFAULT_QUEUE_STATUSES;
  return { characterId, statuses, platform: q.platform, contentType: q.content_type };
}

/**
 * `GET /content` filters: every status unless `status` names some. `type` is the generate body's
 * name for the content type, `content_type` the queue's and the item's; one filter under two names.
 */
export class ContentListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ example: 'approved,published', description: 'Comma-separated statuses; default all.' })
  @IsOptional() @IsString() @MaxLength(200) @Validate(IsStatusList)
  status?: string;

  @ApiPropertyOptional({ enum: PLATFORM_NAMES, description: 'Any spelling of a platform finds every spelling of it (x finds twitter).' })
  @IsOptional() @IsIn(PLATFORM_NAMES)
  platform?: string;

  @ApiPropertyOptional({ enum: CONTENT_TYPES })
  @IsOptional() @IsIn(CONTENT_TYPES)
  type?: string;

  @ApiPropertyOptional({ enum: CONTENT_TYPES, description: 'Same as type.' })
  @IsOptional() @IsIn(CONTENT_TYPES)
  content_type?: string;

  @ApiPropertyOptional({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7', description: 'Another workspace’s character is answered 404, like a missing one.' })
  @IsOptional() @IsString() @Matches(/^char_[0-9A-HJKMNP-TV-Z]{26}$/, { message: 'character_id must be a character id (char_…)' })
  character_id?: string;
}

export function toContentFilter(q: ContentListQueryDto): ContentFilter {
  if (q.type !== undefined && q.content_type !== undefined && q.type !== q.content_type) {
    const message = 'type and content_type name the same filter; send one';
    throw new AppError('validation_failed', message, [{ field: 'type', message }]);
  }
  const statuses = q.status ? [...new Set(q.status.split(',').map((s) => s.trim() as ContentStatus))] : undefined;
  return { characterId: q.character_id, statuses, platform: q.platform, contentType: q.type ?? q.content_type };
}

/** Calendar range; on the character mirror the character comes from the path. */
export class CharacterCalendarQueryDto {
  @ApiPropertyOptional({ example: '2024-07-15', description: 'First day (YYYY-MM-DD); default Monday of this week.' })
  @IsOptional() @IsString() @Validate(IsCalendarDate)
  from?: string;

  @ApiPropertyOptional({ example: '2024-07-21', description: 'Last day, at most 62 days after from; default a week.' })
  @IsOptional() @IsString() @Validate(IsCalendarDate)
  to?: string;
}

export class CalendarQueryDto extends CharacterCalendarQueryDto {
  @ApiPropertyOptional({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7', description: 'Also sets the time zone to the character’s.' })
  @IsOptional() @IsString() @MaxLength(64)
  character_id?: string;
}
