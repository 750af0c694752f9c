import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { canonicalPlatform, isPlatformName, type Platform } from '../../../../core/index.js';
import { PageQueryDto, Present, Trim } from '../../../../platform/http/index.js';
import { CONVERSATION_STATUSES, type ConversationStatus } from '../../domain/conversation.js';
import {
  MAX_BANNED_TOPIC_LENGTH, MAX_BANNED_TOPICS, MAX_DELAY_SECONDS, MAX_GREETING_LENGTH, MAX_REPLIES_PER_HOUR, MIN_REPLIES_PER_HOUR, RESPONDER_MODES, RESPONDER_PLATFORMS,
  type ResponderMode,
} from '../../domain/responder.js';

/** The responder's platforms as the wire may name them (`x` for twitter); compared in their canonical names. */
const RESPONDER_PLATFORM_NAMES = ['instagram', 'twitter', 'x', 'youtube'];
const toCanonical = (value: unknown): unknown => (typeof value === 'string' && isPlatformName(value) ? canonicalPlatform(value) : value);

/** A platform name in a query, canonical (`x` → twitter) once valid. */
const PlatformName = () => Transform(({ value }) => toCanonical(value));

/** Fields left out keep their value (the defaults when the character has no settings yet). */
export class ResponderSettingsDto {
  @ApiPropertyOptional({ description: 'Whether the responder answers at all. Off by default.' })
  @Present() @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ type: [String], enum: RESPONDER_PLATFORM_NAMES, uniqueItems: true, description: 'The platforms it answers on; `x` is read as twitter.' })
  @Present() @IsArray() @ArrayMaxSize(RESPONDER_PLATFORMS.length + 1)
  @Transform(({ value }) => (Array.isArray(value) ? [...new Set(value.map(toCanonical))] : value))
  @IsIn(RESPONDER_PLATFORMS, { each: true, message: `platforms_enabled may hold ${RESPONDER_PLATFORM_NAMES.join(', ')}` })
  platforms_enabled?: string[];

  @ApiPropertyOptional({ type: 'integer', minimum: MIN_REPLIES_PER_HOUR, maximum: MAX_REPLIES_PER_HOUR, default: 20, description: 'Auto replies of this character in any hour, over all its conversations.' })
  @Present() @IsInt() @Min(MIN_REPLIES_PER_HOUR) @Max(MAX_REPLIES_PER_HOUR)
  max_replies_per_hour?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_DELAY_SECONDS, default: 60, description: 'Seconds an auto reply waits after the message it answers arrived.' })
  @Present() @IsInt() @Min(0) @Max(MAX_DELAY_SECONDS)
  response_delay_seconds?: number;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_GREETING_LENGTH, description: 'Woven into the first reply to each person; null for none.' })
  @IsOptional() @Trim() @IsString() @MaxLength(MAX_GREETING_LENGTH)
  greeting_message?: string | null;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_BANNED_TOPICS, description: `Words or phrases (at most ${MAX_BANNED_TOPIC_LENGTH} characters each); a message touching one waits for a person.` })
  @Present() @IsArray() @ArrayMaxSize(MAX_BANNED_TOPICS)
  @Transform(({ value }) => (Array.isArray(value) ? value.map((t) => (typeof t === 'string' ? t.trim() : t)) : value))
  @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(MAX_BANNED_TOPIC_LENGTH, { each: true })
  banned_topics?: string[];

  @ApiPropertyOptional({ enum: RESPONDER_MODES, default: 'review', description: 'auto: replies go out after the delay within the cap; review: every draft waits for a person.' })
  @Present() @IsIn(RESPONDER_MODES)
  mode?: ResponderMode;
}

export class ConversationsQuery extends PageQueryDto {
  @ApiPropertyOptional({ enum: RESPONDER_PLATFORM_NAMES })
  @IsOptional() @PlatformName() @IsIn(RESPONDER_PLATFORMS)
  platform?: Platform;

  @ApiPropertyOptional({ enum: CONVERSATION_STATUSES })
  @IsOptional() @IsIn(CONVERSATION_STATUSES)
  status?: ConversationStatus;
}

export class ManualReplyDto {
  @ApiProperty({ minLength: 1, maxLength: 10_000, description: 'Sent as the character, at once. The platform’s own limit applies (X posts 280, Instagram DMs 1,000).' })
  @Trim() @IsString() @MinLength(1) @MaxLength(10_000)
  text!: string;
}

export class ApproveReplyDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 10_000, description: 'The reply as edited by the reviewer; the draft as written when absent. Required for a draft the text generator could not write (review_reason draft_failed, empty text).' })
  @ValidateIf((_o: object, v: unknown) => v !== undefined) @Trim() @IsString() @MinLength(1) @MaxLength(10_000)
  text?: string;
}
