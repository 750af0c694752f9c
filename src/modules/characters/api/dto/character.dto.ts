import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { Trim } from '../../../../platform/http/index.js';
import { canonicalTimeZone, MAX_REFERENCE_URLS, NAME_MAX, type CharacterInput } from '../../domain/character.js';

/** Optional, but when present it must be a real value: `null` is refused rather than stored. */
const Present = () => ValidateIf((_o: object, v: unknown) => v !== undefined);
const TrimEach = () => Transform(({ value }) => (Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v.trim() : v)) : value));

@ValidatorConstraint({ name: 'isIanaTimeZone' })
class IsIanaTimeZone implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && canonicalTimeZone(value) !== null;
  }
  defaultMessage(): string {
    return 'timezone must be an IANA time zone such as Europe/Berlin';
  }
}

/** An absolute http(s) URL as WHATWG parses it, so our own media URLs (any host, any port) pass. */
@ValidatorConstraint({ name: 'isHttpUrl' })
class IsHttpUrl implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string' || /\s/.test(value)) return false;
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  }
  defaultMessage(): string {
    return 'each reference image must be an http(s) URL';
  }
}

export class AppearanceDto {
  @ApiPropertyOptional({ example: '25-30', maxLength: 40 })
  @Present() @Trim() @IsString() @MaxLength(40)
  age_range?: string;

  @ApiPropertyOptional({ example: 'minimal, earthy tones', maxLength: 200 })
  @Present() @Trim() @IsString() @MaxLength(200)
  aesthetic?: string;
}

export class IdentityDto {
  @ApiPropertyOptional({ example: 'Lisbon, Portugal', maxLength: 120 })
  @Present() @Trim() @IsString() @MaxLength(120)
  location?: string;

  @ApiPropertyOptional({ example: 'travel photographer', maxLength: 120 })
  @Present() @Trim() @IsString() @MaxLength(120)
  occupation?: string;
}

export class PersonalityDto {
  @ApiPropertyOptional({ example: 'warm and witty', maxLength: 200 })
  @Present() @Trim() @IsString() @MaxLength(200)
  tone?: string;
}

export class StyleDto {
  @ApiPropertyOptional({ type: [String], example: ['golden-hour', 'film-grain'], maxItems: 20 })
  @Present() @TrimEach() @IsArray() @ArrayMaxSize(20) @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(60, { each: true })
  presets?: string[];
}

export class SettingsDto {
  @ApiPropertyOptional({ description: 'Finished content goes straight to approved.' })
  @Present() @IsBoolean()
  autopilot?: boolean;
}

/** Fields create and update share, all optional. */
class CharacterFieldsDto {
  @ApiPropertyOptional({ type: () => AppearanceDto })
  @Present() @IsObject() @ValidateNested() @Type(() => AppearanceDto)
  appearance?: AppearanceDto;

  @ApiPropertyOptional({ type: () => IdentityDto })
  @Present() @IsObject() @ValidateNested() @Type(() => IdentityDto)
  identity?: IdentityDto;

  @ApiPropertyOptional({ type: () => PersonalityDto })
  @Present() @IsObject() @ValidateNested() @Type(() => PersonalityDto)
  personality?: PersonalityDto;

  @ApiPropertyOptional({ type: () => StyleDto })
  @Present() @IsObject() @ValidateNested() @Type(() => StyleDto)
  style?: StyleDto;

  @ApiPropertyOptional({ type: () => SettingsDto })
  @Present() @IsObject() @ValidateNested() @Type(() => SettingsDto)
  settings?: SettingsDto;

  @ApiPropertyOptional()
  @Present() @IsBoolean()
  talking_head_enabled?: boolean;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_REFERENCE_URLS, description: 'http(s) image URLs; uploads add to this list.' })
  @Present() @TrimEach() @IsArray() @ArrayMaxSize(MAX_REFERENCE_URLS)
  @IsString({ each: true }) @MaxLength(2048, { each: true }) @Validate(IsHttpUrl, { each: true })
  reference_images?: string[];
}

export class CreateCharacterDto extends CharacterFieldsDto {
  @ApiProperty({ minLength: 1, maxLength: NAME_MAX, example: 'Mia Costa' })
  @Trim() @IsString() @MinLength(1) @MaxLength(NAME_MAX)
  name!: string;

  @ApiProperty({ minLength: 1, maxLength: 80, example: 'travel' })
  @Trim() @IsString() @MinLength(1) @MaxLength(80)
  niche!: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Europe/Lisbon', description: 'IANA time zone its posts are planned in; default: the zone its identity location names.' })
  @IsOptional() @Trim() @IsString() @MaxLength(64) @Validate(IsIanaTimeZone)
  timezone?: string | null;
}

export class UpdateCharacterDto extends CharacterFieldsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: NAME_MAX })
  @Present() @Trim() @IsString() @MinLength(1) @MaxLength(NAME_MAX)
  name?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 80 })
  @Present() @Trim() @IsString() @MinLength(1) @MaxLength(80)
  niche?: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Europe/Lisbon', description: 'IANA time zone; null clears it.' })
  @IsOptional() @Trim() @IsString() @MaxLength(64) @Validate(IsIanaTimeZone)
  timezone?: string | null;
}

export class UploadReferenceImageDto {
  @ApiPropertyOptional({ enum: ['primary', 'reference'], description: 'Defaults to primary for the first image, reference after.' })
  @IsOptional() @IsIn(['primary', 'reference'])
  type?: 'primary' | 'reference';
}

/** Keeps only the keys that were sent (DTO class fields exist as own properties even when unset). */
function defined<T extends object>(value: T | undefined): T | undefined {
  if (value === undefined) return undefined;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Wire input to the domain's input. */
export function toCharacterInput(dto: CreateCharacterDto | UpdateCharacterDto): CharacterInput {
  return {
    name: dto.name,
    niche: dto.niche,
    appearance: defined(dto.appearance),
    identity: defined(dto.identity),
    personality: defined(dto.personality),
    style: defined(dto.style),
    settings: defined(dto.settings),
    talkingHeadEnabled: dto.talking_head_enabled,
    referenceImages: dto.reference_images,
    timezone: dto.timezone,
  };
}
