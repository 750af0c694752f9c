import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { PageQueryDto, Present, Trim } from '../../../../platform/http/index.js';
import { MAX_AMOUNT, MAX_NOTE_LENGTH, REVENUE_SOURCES, type RevenueSource } from '../../domain/revenue.js';

const NullablePresent = () => ValidateIf((_o: object, v: unknown) => v !== undefined && v !== null);
const BOUND = 'An ISO 8601 date-time with a zone, or a date (YYYY-MM-DD, UTC).';

export class CreateRevenueDto {
  @ApiProperty({ enum: REVENUE_SOURCES })
  @IsIn(REVENUE_SOURCES, { message: `source must be one of: ${REVENUE_SOURCES.join(', ')}` })
  source!: RevenueSource;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_AMOUNT, example: 4999, description: 'In the currency’s minor units (cents): 4999 is 49.99.' })
  @IsInt() @Min(0) @Max(MAX_AMOUNT)
  amount!: number;

  @ApiPropertyOptional({ example: 'USD', minLength: 3, maxLength: 3, description: 'ISO 4217; must be the workspace’s currency (default it).' })
  @Present() @Trim() @IsString() @MaxLength(3)
  currency?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2025-01-31T18:00:00Z', description: 'When it was earned; not in the future (5 minutes of clock skew allowed). Default now.' })
  @Present() @Trim() @IsString() @MaxLength(40)
  occurred_at?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_NOTE_LENGTH, example: 'Spring campaign, invoice 2025-014' })
  @NullablePresent() @Trim() @IsString() @MaxLength(MAX_NOTE_LENGTH)
  note?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'lnk_01HZX6FQJ5N6E7T2M3A4B5C6D7', description: 'A link of the same character that earned it; its `revenue` includes this amount.' })
  @NullablePresent() @IsString() @MaxLength(64)
  link_id?: string | null;
}

export class RevenueListQuery extends PageQueryDto {
  @ApiPropertyOptional({ example: '2025-01-01', description: `Entries that occurred at or after this. ${BOUND}` })
  @IsOptional() @IsString() @MaxLength(40)
  from?: string;

  @ApiPropertyOptional({ example: '2025-01-31', description: `Entries that occurred before this (a date: up to the end of that day). ${BOUND}` })
  @IsOptional() @IsString() @MaxLength(40)
  to?: string;
}

export class SummaryQuery {
  @ApiPropertyOptional({ example: '2025-01-01', description: `Start (included). Default 90 days before \`to\`. ${BOUND}` })
  @IsOptional() @IsString() @MaxLength(40)
  from?: string;

  @ApiPropertyOptional({ example: '2025-03-31', description: `End (excluded; a date: the end of that day). Default now. After \`from\`. ${BOUND}` })
  @IsOptional() @IsString() @MaxLength(40)
  to?: string;
}
