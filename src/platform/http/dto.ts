import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min, ValidateIf } from 'class-validator';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_PAGE, MAX_PAGE_SIZE } from '../../core/index.js';

/** Trims string input; applied to every free-text DTO field. */
export function Trim(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));
}

/** Optional, but when present it must be a real value: `null` is refused rather than stored. */
export const Present = (): PropertyDecorator => ValidateIf((_o: object, v: unknown) => v !== undefined);

/** Trims each string of an array input. */
export const TrimEach = (): PropertyDecorator =>
  Transform(({ value }) => (Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v.trim() : v)) : value));

/**
 * A whole number in a query string: only plain decimal digits become a number. Anything else
 * (`1e3`, `0x10`, `1.5`, ` 7`) stays a string, which the integer check after it refuses, instead
 * of `Number()` reading it as something else. Every use pairs it with `@Max`, so twenty digits
 * (an unsafe integer) are refused by their bound, with a message saying so.
 */
export const QueryInt = (): PropertyDecorator =>
  Transform(({ value }) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value));

/** `page` and `page_size` query parameters shared by every list route. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE, default: 1 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  page_size?: number;
}
