import { describe, expect, it } from '@jest/globals';
import { canonicalTimeZone, characterChanges, copyName, hasRoomForCharacter, mergeSection, NAME_MAX, newCharacter, referenceTypeFor } from './character.js';

describe('character rules', () => {
  it('names a duplicate "<name> (copy)" within the name limit', () => {
    expect(copyName('Mia')).toBe('Mia (copy)');
    const long = copyName('x'.repeat(NAME_MAX));
    expect(long.length).toBe(NAME_MAX);
    expect(long.endsWith(' (copy)')).toBe(true);
  });

  it('counts against the plan limit', () => {
    expect(hasRoomForCharacter(2, 3)).toBe(true);
    expect(hasRoomForCharacter(3, 3)).toBe(false);
  });

  it('makes the first reference image primary unless told otherwise', () => {
    expect(referenceTypeFor(undefined, 0)).toBe('primary');
    expect(referenceTypeFor(undefined, 2)).toBe('reference');
    expect(referenceTypeFor('reference', 0)).toBe('reference');
    expect(referenceTypeFor('primary', 5)).toBe('primary');
  });

  it('merges profile sections key by key', () => {
    expect(mergeSection({ age_range: '25-30', aesthetic: 'boho' }, { aesthetic: 'minimal' })).toEqual({ age_range: '25-30', aesthetic: 'minimal' });
    expect(mergeSection({ tone: 'warm' }, undefined)).toEqual({ tone: 'warm' });
  });

  it('accepts IANA zones in canonical spelling and refuses the rest', () => {
    expect(canonicalTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('america/new_york')).toBe('America/New_York');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    for (const bad of ['Mars/Olympus', 'not a zone', '', '+01:00', 'Europe/../Berlin', 'x'.repeat(200)]) {
      expect([bad, canonicalTimeZone(bad)]).toEqual([bad, null]);
    }
  });
});

describe('character updates', () => {
  const now = new Date('2025-01-02T03:04:05Z');
  const base = newCharacter('char_X', 'ws_X', { name: 'Mia', niche: 'travel', appearance: { age_range: '25-30', aesthetic: 'boho' }, settings: { autopilot: true } }, new Date('2025-01-01T00:00:00Z'));

  it('starts with the interface defaults', () => {
    expect(base).toMatchObject({ autopilot: true, isDefault: false, loraTrainingStatus: 'none', faceConsistencyTier: 'ip_adapter', contentCount: 0, followerCount: 0, lastPostDate: null, referenceImages: [], timezone: null });
  });

  it('changes only what was sent, merging sections and canonicalising the zone', () => {
    const changes = characterChanges(base, { appearance: { aesthetic: 'minimal' }, settings: { autopilot: false }, timezone: 'europe/paris', referenceImages: ['https://a/x.png', 'https://a/x.png'] }, now);
    expect(changes).toEqual({
      updatedAt: now,
      appearance: { age_range: '25-30', aesthetic: 'minimal' },
      settings: { autopilot: false },
      autopilot: false,
      timezone: 'Europe/Paris',
      referenceImages: ['https://a/x.png'],
    });
    expect(characterChanges(base, { timezone: null }, now)).toEqual({ updatedAt: now, timezone: null });
  });
});
