import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { Trim } from '../../../../platform/http/index.js';
import type { GenerateImageRequest, GenerateVideoRequest } from '../../application/content-generation.service.js';
import { ASPECT_RATIOS } from '../../../generation/index.js';
import { CONTENT_TYPES, LIMITS, type ContentType } from '../../domain/content-item.js';
import { PLATFORM_NAMES, VIDEO_DEFAULT_ASPECT, VIDEO_DEFAULT_SECONDS, VIDEO_MAX_SECONDS, VIDEO_MIN_SECONDS, VIDEO_TYPES, type PlatformName } from '../../domain/platforms.js';
import { Present, TrimEach } from './validators.js';

export class GenerateContentDto {
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' })
  @IsString() @MaxLength(64)
  character_id!: string;

  @ApiPropertyOptional({ enum: CONTENT_TYPES, default: 'single', description: 'A carousel is three images, every other type one.' })
  @Present() @IsIn(CONTENT_TYPES)
  type?: ContentType;

  @ApiProperty({ enum: PLATFORM_NAMES, example: 'instagram' })
  @IsIn(PLATFORM_NAMES)
  platform!: PlatformName;

  @ApiProperty({ minLength: 1, maxLength: LIMITS.prompt, example: 'Morning run along the river at sunrise' })
  @Trim() @IsString() @MinLength(1) @MaxLength(LIMITS.prompt)
  prompt!: string;

  @ApiPropertyOptional({ maxLength: LIMITS.caption, description: 'Without one, the job writes the caption, hashtags and call to action.' })
  @Present() @Trim() @IsString() @MaxLength(LIMITS.caption)
  caption?: string;

  @ApiPropertyOptional({ type: [String], maxItems: LIMITS.hashtags, example: ['#running', '#sunrise'] })
  @Present() @TrimEach() @IsArray() @ArrayMaxSize(LIMITS.hashtags) @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(LIMITS.hashtag, { each: true })
  hashtags?: string[];

  @ApiPropertyOptional({ maxLength: LIMITS.cta, example: 'Follow for daily routes' })
  @Present() @Trim() @IsString() @MaxLength(LIMITS.cta)
  cta?: string;
}

export function toGenerateImageRequest(dto: GenerateContentDto): GenerateImageRequest {
  return {
    characterId: dto.character_id,
    type: dto.type ?? 'single',
    platform: dto.platform,
    prompt: dto.prompt,
    // An empty caption asks for one to be written, like a missing one.
    caption: dto.caption || undefined,
    hashtags: dto.hashtags,
    cta: dto.cta || undefined,
  };
}

export class GenerateVideoDto {
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' })
  @IsString() @MaxLength(64)
  character_id!: string;

  @ApiProperty({ enum: PLATFORM_NAMES, example: 'short_video' })
  @IsIn(PLATFORM_NAMES)
  platform!: PlatformName;

  @ApiProperty({ minLength: 1, maxLength: LIMITS.prompt, example: 'Walking through a neon-lit night market' })
  @Trim() @IsString() @MinLength(1) @MaxLength(LIMITS.prompt)
  scene_description!: string;

  @ApiPropertyOptional({ enum: VIDEO_TYPES, description: 'Default short on short-video and long-video platforms, else reel.' })
  @Present() @IsIn(VIDEO_TYPES)
  type?: ContentType;

  @ApiPropertyOptional({ minimum: VIDEO_MIN_SECONDS, maximum: VIDEO_MAX_SECONDS, default: VIDEO_DEFAULT_SECONDS })
  @Present() @IsInt() @Min(VIDEO_MIN_SECONDS) @Max(VIDEO_MAX_SECONDS)
  duration_seconds?: number;

  @ApiPropertyOptional({ enum: ASPECT_RATIOS, default: VIDEO_DEFAULT_ASPECT })
  @Present() @IsIn(ASPECT_RATIOS)
  aspect_ratio?: string;
}

export function toGenerateVideoRequest(dto: GenerateVideoDto): GenerateVideoRequest {
  return {
    characterId: dto.character_id,
    platform: dto.platform,
    sceneDescription: dto.scene_description,
    type: dto.type,
    durationSeconds: dto.duration_seconds ?? VIDEO_DEFAULT_SECONDS,
    aspectRatio: dto.aspect_ratio ?? VIDEO_DEFAULT_ASPECT,
  };
}
