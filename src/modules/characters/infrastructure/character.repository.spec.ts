import { describe, expect, it } from '@jest/globals';
import { getMetadataArgsStorage } from 'typeorm';
import { CharacterEntity } from './character.entity.js';
import { INSERT_CHARACTER, INSERT_CHARACTER_WITHIN } from './character.repository.js';

describe('the character insert (plain SQL)', () => {
  it('writes every column of the entity, each with its own parameter', () => {
    const entityColumns = getMetadataArgsStorage()
      .columns.filter((c) => c.target === CharacterEntity)
      .map((c) => c.options.name ?? c.propertyName)
      .sort();
    const [, list, values] = /\(([^)]*)\)\s*VALUES\s*\((.*)\)/s.exec(INSERT_CHARACTER) ?? [];
    const inserted = list.split(',').map((c) => c.trim());
    expect([...inserted].sort()).toEqual(entityColumns);
    expect(values.split(',').map((v) => v.trim().replace(/::.*$/, ''))).toEqual(inserted.map((_, i) => `$${i + 1}`));
  });

  it('adds within the limit with the same columns and parameters, the limit last', () => {
    const [, list] = /\(([^)]*)\)\s*VALUES/s.exec(INSERT_CHARACTER) ?? [];
    const [, within, selected] = /\(([^)]*)\)\s*SELECT (.*?)\s*WHERE/s.exec(INSERT_CHARACTER_WITHIN) ?? [];
    expect(within).toBe(list);
    const params = selected.split(',').map((v) => v.trim().replace(/::.*$/, ''));
    expect(params).toEqual(list.split(',').map((_, i) => `$${i + 1}`));
    expect(INSERT_CHARACTER_WITHIN).toMatch(/< \$24::int\s+RETURNING id$/);
  });
});
