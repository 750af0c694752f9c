import { describe, expect, it } from '@jest/globals';
import { AppError, newId } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { newCharacter } from '../domain/character.js';
import type { CharacterRepository } from '../infrastructure/character.repository.js';
import { CharacterQuota } from './character-quota.js';

/** A workspace on `plan` holding `count` characters; the insert honours the limit it is given. */
function repository(plan: string | null, count: number) {
  const calls: string[] = [];
  const repo = {
    lockWorkspacePlan: async () => (calls.push('lock'), plan),
    insertWithin: async (_tx: Tx, _c: unknown, limit: number) => (calls.push(`insert within ${limit}`), count < limit),
    count: async () => (calls.push('count'), count),
  };
  return { repo: repo as unknown as CharacterRepository, calls };
}

const character = () => newCharacter(newId('char'), newId('ws'), { name: 'A', niche: 'fitness' }, new Date());

describe('CharacterQuota.add', () => {
  it('locks the workspace, then inserts within its plan limit in one statement', async () => {
    const { repo, calls } = repository('starter', 2);
    const c = character();
    await expect(new CharacterQuota(repo).add({} as Tx, c)).resolves.toBe(c);
    expect(calls).toEqual(['lock', 'insert within 3']);
  });

  it('refuses at the limit with the plan, the limit and the count', async () => {
    const { repo, calls } = repository('starter', 3);
    const refusal = await new CharacterQuota(repo).add({} as Tx, character()).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: 'character_limit_reached', details: { plan: 'starter', limit: 3, count: 3 } });
    expect(calls).toEqual(['lock', 'insert within 3', 'count']);
  });

  it('answers not found for a workspace that is gone', async () => {
    const { repo } = repository(null, 0);
    await expect(new CharacterQuota(repo).add({} as Tx, character())).rejects.toMatchObject({ code: 'not_found' });
  });
});
