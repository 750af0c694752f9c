import type { Character } from '../domain/character.js';
import type { CharacterBrief } from '../../generation/index.js';

/** What the providers need to know about a character to write and draw in its voice and look. */
export function toCharacterBrief(c: Character, primaryImageUrl: string | null = c.referenceImages[0] ?? null): CharacterBrief {
  return {
    id: c.id,
    name: c.name,
    niche: c.niche,
    tone: c.personality.tone,
    aesthetic: c.appearance.aesthetic,
    ageRange: c.appearance.age_range,
    location: c.identity.location,
    occupation: c.identity.occupation,
    stylePresets: c.style.presets ?? [],
    primaryImageUrl,
  };
}
