import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { Trim } from '../../../../platform/http/index.js';
import { MAX_PREVIEW_SCRIPT, MAX_SCRIPT, TH_ASPECT_RATIOS, type ThAspectRatio } from '../../domain/talking-head.js';

const Present = () => ValidateIf((_o: object, v: unknown) => v !== undefined);

export class TalkingHeadPreviewDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_PREVIEW_SCRIPT, example: 'Hi! Quick tip for your morning run.' })
  @Trim() @IsString() @MinLength(1) @MaxLength(MAX_PREVIEW_SCRIPT)
  script!: string;
}

export class TalkingHeadGenerateDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_SCRIPT })
  @Trim() @IsString() @MinLength(1) @MaxLength(MAX_SCRIPT)
  script!: string;

  @ApiPropertyOptional({ enum: TH_ASPECT_RATIOS, default: '9:16' })
  @Present() @IsIn(TH_ASPECT_RATIOS)
  aspect_ratio?: ThAspectRatio;
}
