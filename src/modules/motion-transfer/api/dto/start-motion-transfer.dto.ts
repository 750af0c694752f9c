import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, Max, MaxLength, Min, Validate, ValidateIf, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { Trim } from '../../../../platform/http/index.js';
import {
  DEFAULT_ASPECT_RATIO,
  DEFAULT_DURATION_SECONDS,
  MAX_DURATION_SECONDS,
  MIN_DURATION_SECONDS,
  MOTION_ASPECT_RATIOS,
  type MotionAspectRatio,
} from '../../domain/motion-transfer.js';

/** Optional, but when present it must be a real value: `null` is refused. */
const Present = () => ValidateIf((_o: object, v: unknown) => v !== undefined);

/** Multipart text fields arrive as strings; a plain whole number in one is read as that number. */
const FormInteger = () => Transform(({ value }) => (typeof value === 'string' && /^\s*\d{1,4}\s*$/.test(value) ? Number(value) : value));

/** An absolute http(s) URL with a host and no credentials; where it points is checked when it is fetched. */
@ValidatorConstraint({ name: 'isHttpUrl' })
class IsHttpUrl implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string' || /\s/.test(value)) return false;
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '';
    } catch {
      return false;
    }
  }
  defaultMessage(): string {
    return 'reference_video_url must be an http or https URL without credentials';
  }
}

/** JSON body, or the text fields next to the multipart file part `video`. */
export class StartMotionTransferDto {
  @ApiPropertyOptional({
    description: 'The driving video (MP4, MOV or WebM, at most 100 MiB), downloaded by the job. Required unless a `video` file is uploaded.',
    example: 'https://cdn.example.com/dance.mp4',
    maxLength: 2048,
  })
  @Present() @Trim() @IsString() @MaxLength(2048) @Validate(IsHttpUrl)
  reference_video_url?: string;

  @ApiPropertyOptional({ minimum: MIN_DURATION_SECONDS, maximum: MAX_DURATION_SECONDS, default: DEFAULT_DURATION_SECONDS, description: 'Seconds of output.' })
  @Present() @FormInteger() @IsInt() @Min(MIN_DURATION_SECONDS) @Max(MAX_DURATION_SECONDS)
  duration_seconds?: number;

  @ApiPropertyOptional({ enum: MOTION_ASPECT_RATIOS, default: DEFAULT_ASPECT_RATIO })
  @Present() @Trim() @IsIn(MOTION_ASPECT_RATIOS)
  aspect_ratio?: MotionAspectRatio;
}
