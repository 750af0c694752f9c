import { describe, expect, it } from '@jest/globals';
import type { ArgumentMetadata } from '@nestjs/common';
import { Equals, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { AppError } from '../../core/index.js';
import { PageQueryDto } from './dto.js';
import { strictValidationPipe } from './validation.js';

class Inner {
  @IsString() @MaxLength(10)
  city!: string;
}

class Body {
  @IsString() @MinLength(1) @MaxLength(80)
  niche!: string;

  @IsInt() @Min(1) @Max(5)
  stars!: number;

  @IsOptional() @IsIn(['a', 'b'])
  kind?: string;

  @IsOptional() @ValidateNested() @Type(() => Inner)
  place?: Inner;
}

class Consent {
  @Equals(true, { message: 'accept_terms must be true' })
  accept_terms!: boolean;
}

async function problems(value: unknown, metatype: ArgumentMetadata['metatype'] = Body, type: ArgumentMetadata['type'] = 'body') {
  try {
    await strictValidationPipe().transform(value, { type, metatype });
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { message: e.message, details: e.details as Array<{ field: string; message: string }> };
  }
  return undefined;
}

describe('strictValidationPipe', () => {
  it('says a missing field is required, once per field', async () => {
    expect(await problems({ stars: 3 })).toEqual({
      message: 'niche is required',
      details: [{ field: 'niche', message: 'niche is required' }],
    });
  });

  it('says a missing field that must hold one value which value, not only that it is required', async () => {
    expect(await problems({}, Consent)).toEqual({
      message: 'accept_terms is required and must be true',
      details: [{ field: 'accept_terms', message: 'accept_terms is required and must be true' }],
    });
    expect((await problems({ accept_terms: false }, Consent))?.message).toBe('accept_terms must be true');
  });

  it('puts the kind of value before its bounds', async () => {
    const out = await problems({ niche: 5, stars: 'many', place: { city: 7 } });
    expect(out?.details).toEqual([
      { field: 'niche', message: 'niche must be a string' },
      { field: 'stars', message: 'stars must be an integer number' },
      { field: 'place.city', message: 'city must be a string' },
    ]);
    expect(out?.message).toBe('niche must be a string');
  });

  it('names the bound that failed when the kind is right', async () => {
    expect((await problems({ niche: '', stars: 9 }))?.details).toEqual([
      { field: 'niche', message: 'niche must be longer than or equal to 1 characters' },
      { field: 'stars', message: 'stars must not be greater than 5' },
    ]);
  });

  it('refuses unknown fields, and never echoes a value', async () => {
    const out = await problems({ niche: 'x', stars: 1, secret: 'hunter2' });
    expect(out?.details).toEqual([{ field: 'secret', message: 'property secret should not exist' }]);
    expect(JSON.stringify(out)).not.toContain('hunter2');
  });

  it('refuses control characters in bodies, queries and path parameters', async () => {
    expect((await problems({ niche: 'a\u0000b', stars: 1 }))?.details).toEqual([{ field: 'niche', message: 'niche must not contain control characters' }]);
    expect(await problems({ niche: 'two\nlines', stars: 1 })).toBeUndefined();
    expect((await problems({ page: '1\n' }, PageQueryDto, 'query'))?.details[0].field).toBe('page');
    expect((await problems('id\u0000', String, 'param'))?.message).toMatch(/control characters/);
  });

  it('reads page numbers as plain digits only, up to 1,000,000', async () => {
    expect(await problems({ page: '1000000', page_size: '100' }, PageQueryDto, 'query')).toBeUndefined();
    expect((await problems({ page: '99999999999999999999' }, PageQueryDto, 'query'))?.message).toBe('page must not be greater than 1000000');
    for (const page of ['1e3', '0x10', '1.5', ' 2', '']) {
      expect((await problems({ page }, PageQueryDto, 'query'))?.message).toBe('page must be an integer number');
    }
  });
});
