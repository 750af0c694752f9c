/** What other contexts may use from the characters context. */
export { CharactersFacade } from './application/characters.facade.js';
export type { CharacterDeletionHook } from './application/character-lifecycle.js';
export type { Character, Appearance, Identity, Personality, Style, Settings } from './domain/character.js';
export { toCharacterBody, CharacterBody } from './api/dto/character.body.js';
