import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { Present, Trim } from '../../../../platform/http/index.js';
import { REJECTION_REASON_MAX } from '../../domain/decisions.js';

export class RejectContentDto {
  @ApiPropertyOptional({ maxLength: REJECTION_REASON_MAX, example: 'Off-brand colours' })
  @Present() @Trim() @IsString() @MaxLength(REJECTION_REASON_MAX)
  reason?: string;
}
