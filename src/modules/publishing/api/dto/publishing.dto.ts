import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { AppError, PLATFORM_NAMES, type LocalDate } from '../../../../core/index.js';
import { IsTimestamp, PageQueryDto, TIMESTAMP_SHAPE, Trim } from '../../../../platform/http/index.js';
import { POST_STATUSES, type PostStatus } from '../../domain/scheduled-post.js';
import type { PostQuery } from '../../application/schedule.service.js';

const CHARACTER_ID = /^char_[0-9A-HJKMNP-TV-Z]{26}$/;
const CONTENT_ID = /^cnt_[0-9A-HJKMNP-TV-Z]{26}$/;
const STATUS_LIST = new RegExp(`^(${POST_STATUSES.join('|')})(,(${POST_STATUSES.join('|')}))*$`);

export class AuthUrlQueryDto {
  @ApiProperty({ example: '/settings/integrations', description: 'In-app path to return to: one leading "/", no scheme or host.' })
  @IsString() @Length(1, 512)
  redirect!: string;
}

/**
 * The parameters of an OAuth callback that matter. Platforms add their own (Google `authuser`,
 * `prompt`, `hd`; TikTok `scopes`; Facebook `error_code`, `error_reason`), so unknown ones are
 * ignored here rather than refused like everywhere else.
 */
export function toCallbackParams(query: Record<string, unknown>): { code?: string; state?: string; error?: string } {
  const pick = (field: string, max: number): string | undefined => {
    const value = query[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > max) {
      throw new AppError('validation_failed', `${field} must be a string of at most ${max} characters.`, [{ field, message: `must be a string of at most ${max} characters` }]);
    }
    return value;
  };
  return { code: pick('code', 4096), state: pick('state', 512), error: pick('error', 512) };
}

export class SandboxConsentQueryDto {
  @ApiProperty() @IsString() @Length(1, 512)
  state!: string;
}

export class DefaultBoardDto {
  @ApiProperty({ example: '1001' }) @Trim() @IsString() @Length(1, 128)
  board_id!: string;
}

/** A calendar day, YYYY-MM-DD, that exists (no 2030-02-30). */
export function calendarDay(value: string): LocalDate | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day ? { year, month, day } : null;
}

/** A timestamp with its zone, or a day (YYYY-MM-DD), as `week` takes on week plans. */
@ValidatorConstraint({ name: 'isTimestampOrDate' })
class IsTimestampOrDate implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string') return false;
    return calendarDay(value) !== null || (TIMESTAMP_SHAPE.test(value) && !Number.isNaN(Date.parse(value)));
  }
  defaultMessage(): string {
    return '$property must be a date (YYYY-MM-DD) or an ISO 8601 timestamp with a zone, e.g. 2024-07-15T16:00:00Z';
  }
}

/** `start_date` as the service takes it: an instant, or a day that starts at midnight in the character's zone. */
export function toScheduleStart(value: string): Date | LocalDate {
  return calendarDay(value) ?? new Date(value);
}

export class GenerateScheduleDto {
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) @IsString() @Matches(CHARACTER_ID, { message: 'character_id must be a character id' })
  character_id!: string;

  @ApiProperty({
    example: '2026-12-01',
    description: "No slot before it: an ISO 8601 timestamp with a zone, or a day (YYYY-MM-DD) meaning that day's start in the character's time zone.",
  })
  @IsString() @Validate(IsTimestampOrDate)
  start_date!: string;

  @ApiPropertyOptional({ enum: PLATFORM_NAMES, isArray: true, description: "Default: each item's own platform." })
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(11) @IsIn(PLATFORM_NAMES, { each: true })
  platforms?: string[];

  @ApiPropertyOptional({ minimum: 1, maximum: 31, default: 7 }) @IsOptional() @IsInt() @Min(1) @Max(31)
  days?: number;
}

export class ScheduleContentDto {
  @ApiProperty({ example: '2026-12-01T16:00:00Z' }) @Validate(IsTimestamp)
  scheduled_at!: string;

  @ApiPropertyOptional({ enum: PLATFORM_NAMES, isArray: true, description: "Default: the item's own platform." })
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(11) @IsIn(PLATFORM_NAMES, { each: true })
  platforms?: string[];
}

export class UpdatePostDto {
  @ApiPropertyOptional({ example: '2026-12-01T16:00:00Z' }) @IsOptional() @Validate(IsTimestamp)
  scheduled_at?: string;

  @ApiPropertyOptional({ enum: ['cancelled'] }) @IsOptional() @IsIn(['cancelled'])
  status?: 'cancelled';

}

export class PublicPublishDto {
  @ApiProperty({ example: 'cnt_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) @IsString() @Matches(CONTENT_ID, { message: 'content_id must be a content id' })
  content_id!: string;

  @ApiProperty({ enum: PLATFORM_NAMES }) @IsIn(PLATFORM_NAMES)
  platform!: string;
}

export class PostQueryDto extends PageQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @Matches(CHARACTER_ID, { message: 'character_id must be a character id' })
  character_id?: string;

  @ApiPropertyOptional({ enum: PLATFORM_NAMES }) @IsOptional() @IsIn(PLATFORM_NAMES)
  platform?: string;

  @ApiPropertyOptional({ example: 'pending', description: `Comma-separated: ${POST_STATUSES.join(', ')}.` })
  @IsOptional() @IsString() @Matches(STATUS_LIST, { message: `status must be a comma-separated list of ${POST_STATUSES.join(', ')}` })
  status?: string;

  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z' }) @IsOptional() @Validate(IsTimestamp)
  from?: string;

  @ApiPropertyOptional({ example: '2026-12-08T00:00:00Z' }) @IsOptional() @Validate(IsTimestamp)
  to?: string;
}

/** The change a PATCH asks for; at least one field (an empty PATCH is a mistake worth telling). */
export function toPostChange(dto: UpdatePostDto): { scheduledAt?: Date; cancel?: boolean } {
  if (dto.scheduled_at === undefined && dto.status === undefined) {
    throw new AppError('validation_failed', 'Send scheduled_at or status.', [{ field: 'scheduled_at', message: 'send scheduled_at or status' }]);
  }
  return { scheduledAt: dto.scheduled_at ? new Date(dto.scheduled_at) : undefined, cancel: dto.status === 'cancelled' };
}

export function toPostQuery(q: PostQueryDto): PostQuery {
  return {
    characterId: q.character_id,
    platform: q.platform,
    statuses: q.status ? [...new Set(q.status.split(',') as PostStatus[])] : undefined,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
  };
}

