import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Equals, IsIn, IsInt, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { Trim } from '../../../../platform/http/index.js';
import { LORA_BASE_MODELS, LORA_RANK, TRAINING_STEPS, type LoraBaseModel } from '../../domain/lora.js';

/** Optional, but when present it must be a real value: `null` is refused. */
const Present = () => ValidateIf((_o: object, v: unknown) => v !== undefined);

/** `POST .../lora/train`. */
export class TrainLoraDto {
  @ApiProperty({ enum: LORA_BASE_MODELS, example: 'flux-dev' })
  @IsIn(LORA_BASE_MODELS, { message: `base_model must be one of: ${LORA_BASE_MODELS.join(', ')}` })
  base_model!: LoraBaseModel;

  @ApiPropertyOptional({ minimum: TRAINING_STEPS.min, maximum: TRAINING_STEPS.max, default: TRAINING_STEPS.default })
  @Present() @IsInt() @Min(TRAINING_STEPS.min) @Max(TRAINING_STEPS.max)
  training_steps?: number;

  @ApiPropertyOptional({ minimum: LORA_RANK.min, maximum: LORA_RANK.max, default: LORA_RANK.default })
  @Present() @IsInt() @Min(LORA_RANK.min) @Max(LORA_RANK.max)
  lora_rank?: number;

  @ApiPropertyOptional({
    description: 'The token that calls up the character in prompts: 3 to 40 letters, digits or underscores. Default: from the name, e.g. ZARA_K7Q2.',
    example: 'ZARA_K7Q2',
  })
  @Present() @Trim() @IsString() @Matches(/^[A-Za-z0-9_]{3,40}$/, { message: 'trigger_word must be 3 to 40 letters, digits or underscores' })
  trigger_word?: string;
}

/** `POST .../lora/images` as JSON: copy the character's reference images in. */
export class CopyTrainingImagesDto {
  @ApiPropertyOptional({ description: 'true: copy the character’s uploaded reference images in as training images.', example: true })
  @Present() @Equals(true, { message: 'from_reference_images must be true when given' })
  from_reference_images?: true;
}
