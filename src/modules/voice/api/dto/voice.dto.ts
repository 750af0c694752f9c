import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsNumber, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { Trim, TrimEach } from '../../../../platform/http/index.js';
import { SPEECH_FORMATS, type SpeechFormat } from '../../../generation/index.js';
import { MAX_PREVIEW_CHARS, MAX_SAMPLES, MAX_SPEECH_CHARS } from '../../domain/voice.js';

/** Optional, but when present it must be a real value: `null` is refused. */
const Present = () => ValidateIf((_o: object, v: unknown) => v !== undefined);
/** Multipart text fields arrive as strings: a plain decimal in one is read as that number. */
const FormNumber = () => Transform(({ value }) => (typeof value === 'string' && /^\s*\d(\.\d{1,6})?\s*$/.test(value) ? Number(value) : value));
const FormBoolean = () => Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value));
const Unit = () => (target: object, key: string | symbol) => {
  Present()(target, key);
  FormNumber()(target, key);
  IsNumber({ allowNaN: false, allowInfinity: false })(target, key);
  Min(0)(target, key);
  Max(1)(target, key);
};

/** `PUT .../voice/settings`: any of the fields; the others keep their values. */
export class VoiceSettingsDto {
  @ApiPropertyOptional({ description: 'A library voice or one of this workspace’s clones (GET /voices).', example: '21m00Tcm4TlvDq8ikWAM' })
  @Present() @Trim() @IsString() @MinLength(1) @MaxLength(100) @Matches(/^[A-Za-z0-9_-]+$/, { message: 'voice_id must be letters, digits, _ or -' })
  voice_id?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0.5 }) @Unit() stability?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0.75 }) @Unit() similarity_boost?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0 }) @Unit() style?: number;

  @ApiPropertyOptional({ default: true })
  @Present() @FormBoolean() @IsBoolean()
  use_speaker_boost?: boolean;

  @ApiPropertyOptional({ example: 'eleven_multilingual_v2' })
  @Present() @Trim() @IsString() @MinLength(1) @MaxLength(100) @Matches(/^[A-Za-z0-9_.-]+$/, { message: 'model_id must be letters, digits, _, . or -' })
  model_id?: string;
}

/** `POST .../voice-clone` as JSON (sample_urls) or multipart text fields beside `sample`/`samples` parts. */
export class CloneVoiceDto {
  @ApiProperty({
    required: true, minLength: 1, maxLength: 100, example: 'Zara (warm)',
    description: 'Required, in JSON and in multipart alike: the name the clone is listed under in GET /voices and at the provider.',
  })
  @Trim() @IsString() @MinLength(1) @MaxLength(100)
  name!: string;

  @ApiPropertyOptional({ maxLength: 500 })
  @Present() @Trim() @IsString() @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: MAX_SAMPLES, description: 'http(s) URLs of the samples, fetched now; required unless sample files are uploaded.' })
  @Present() @TrimEach() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(MAX_SAMPLES) @IsString({ each: true }) @MaxLength(2048, { each: true })
  sample_urls?: string[];

  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) @Unit() stability?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) @Unit() similarity_boost?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) @Unit() style?: number;

  @ApiPropertyOptional()
  @Present() @FormBoolean() @IsBoolean()
  use_speaker_boost?: boolean;
}

export class PreviewSpeechDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_PREVIEW_CHARS, example: 'Hi, I am Zara. Ready for today’s run?' })
  @Trim() @IsString() @MinLength(1) @MaxLength(MAX_PREVIEW_CHARS)
  text!: string;
}

export class GenerateSpeechDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_SPEECH_CHARS })
  @Trim() @IsString() @MinLength(1) @MaxLength(MAX_SPEECH_CHARS)
  text!: string;

  @ApiPropertyOptional({ enum: SPEECH_FORMATS, default: 'mp3' })
  @Present() @IsIn(SPEECH_FORMATS)
  format?: SpeechFormat;
}
