import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { Trim } from '../../../../platform/http/index.js';
import { REVIEW_COMMENT_MAX } from '../../domain/listing.js';

export class CreateReviewDto {
  @ApiProperty({ minimum: 1, maximum: 5, example: 5 })
  @IsInt() @Min(1) @Max(5)
  rating!: number;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: REVIEW_COMMENT_MAX, example: 'Great starting point for my travel account.' })
  @ValidateIf((_o: object, v: unknown) => v !== undefined && v !== null) @Trim() @IsString() @MaxLength(REVIEW_COMMENT_MAX)
  comment?: string | null;
}
