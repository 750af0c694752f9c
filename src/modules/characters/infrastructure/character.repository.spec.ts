import { describe, expect, it } from '@jest/globals';
import { getMetadataArgsStorage } from 'typeorm';
import { CharacterEntity } from './character.entity.js';
import { INSERT_CHARACTER } from './character.repository.js';

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
});
