import { Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min, ValidateIf } from 'class-validator';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_PAGE_SIZE } from '../../core/index.js';

/** Trims string input; applied to every free-text DTO field. */
export function Trim(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));
}

/** Optional, but when present it must be a real value: `null` is refused rather than stored. */
export const Present = (): PropertyDecorator => ValidateIf((_o: object, v: unknown) => v !== undefined);

/** Trims each string of an array input. */
export const TrimEach = (): PropertyDecorator =>
  Transform(({ value }) => (Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v.trim() : v)) : value));

/** `page` and `page_size` query parameters shared by every list route. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  page_size?: number;
}
