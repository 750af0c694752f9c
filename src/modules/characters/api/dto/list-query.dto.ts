import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { PageQueryDto, Trim } from '../../../../platform/http/index.js';
import type { CharacterListFilter } from '../../infrastructure/character.repository.js';

/** `GET /characters` filters: a niche (whole, any case) and a piece of the name (any case, taken literally). */
export class CharacterListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ example: 'fitness', description: 'Characters of this niche, compared whole and case-insensitively.' })
  @IsOptional() @Trim() @IsString() @MinLength(1) @MaxLength(80)
  niche?: string;

  @ApiPropertyOptional({ example: 'ava', description: 'Characters whose name contains this text, case-insensitively; % and _ match themselves.' })
  @IsOptional() @Trim() @IsString() @MinLength(1) @MaxLength(80)
  q?: string;
}

export function toCharacterListFilter(q: CharacterListQueryDto): CharacterListFilter {
  return { niche: q.niche, nameContains: q.q };
}
